import FaultlineConfig
import FaultlineContract
import FaultlineCore
import Foundation

/// `faultline check TRACE`: check a trace against the session-boundary contract.
///
/// Exit status: 0 when the contract holds (and the trace is sound), 1 with violations or trace
/// problems, 2 on unusable input (bad usage, unreadable trace, malformed trace line as
/// `TRACE:LINE: message`, bad contract file as `FILE:LINE:COLUMN: message`, a contract file that
/// does not exist). Errors go to standard error; with `--format junit`, unusable input still
/// gives a JUnit report (one failing case carrying the error), so CI always gets its file.
enum CheckCommand {
    static let specs: [OptionSpec] =
        OptionSpec.table(
            """
            --contract FILE  a contract file (JSON5): clauses on/off, callbacks, steps, cancel marks (default: the built-in default contract)
            --format FORMAT  text (default), json, junit, html (one page, a timeline picture per violation) or svg (one violation's picture)
            --violation N    with --format svg: draw the Nth violation (default 1)
            --output FILE    write the report to FILE instead of standard output
            """) + [.helpOption]

    static let help = helpText(
        command: "check",
        synopsis: "TRACE [--contract FILE] [--format text|json|junit|html|svg] [--violation N] [--output FILE]",
        summary: """
            Reads a trace (a file, or - for standard input) and says which clause of the session-boundary \
            contract was broken, by which requests: \(ClauseID.allCases.map(\.rawValue).joined(separator: ", ")). \
            It also checks the trace itself (gapless seq, no secret in clear).
            Without --contract the trace is held to the built-in default contract: all nine clauses on, nothing \
            declared (so exactly-once and dependency-respected cannot be checked and the best verdict is \
            PASSED IN PART), Idempotency-Key as the retry identity header. The report's first line names the \
            contract used. A clause is marked ✓ only when the trace gave it something to judge and it held; \
            ○ when the trace never met its case (no refresh, no logout, no declared callback); ? when it could \
            not be checked (no auth profile, no login seen, nothing declared), which makes the verdict \
            PASSED IN PART.
            Exit status: \(exitStatus) (with --format junit, still a JUnit report with one failing case carrying \
            the error).
            --format html writes one self-contained page (no script, no external resource) with, per violation, \
            a swimlane picture per lineage: requests as bars from received to delivered, the logout boundary as \
            a line, refreshes marked, the offending request in red, witnesses labelled by seq. --format svg \
            writes the first violation's picture (or the --violation N-th) as an SVG document; with no \
            violation it writes nothing and says so on standard error.
            Examples:
              faultline check trace.jsonl
              faultline check trace.jsonl --contract Rules/contracts/session.contract.json5 --format junit --output report.xml
              faultline check trace.jsonl --format html --output report.html
              faultline check trace.jsonl --format svg --violation 2 --output violation.svg
            """,
        specs: specs)

    /// The exit codes, as help and README.md ("Checking a trace") word them.
    static let exitStatus = "0 when the contract holds, 1 with violations or trace problems, 2 on unusable input"

    static let formats = ["text", "json", "junit", "html", "svg"]

    static func run(_ arguments: [String]) -> Int32 {
        ParsedArguments.run(arguments, specs: specs, command: "check", help: help, check)
    }

    /// `faultline check` with its options parsed.
    static func check(_ parsed: ParsedArguments) -> Int32 {
        let format = parsed.value("--format") ?? "text"
        guard formats.contains(format) else {
            var message = "faultline check: unknown format '\(format)'; use text, json, junit, html or svg"
            if let near = EditDistance.nearest(to: format, in: formats) { message += " (did you mean '\(near)'?)" }
            printError(message)
            return 2
        }
        let output = parsed.value("--output")
        var violationNumber: Int?
        if let value = parsed.value("--violation") {
            guard format == "svg" else {
                printError("faultline check: --violation goes with --format svg (html draws every violation)")
                return 2
            }
            guard let number = Int(value), number >= 1 else {
                printError("faultline check: --violation wants a number from 1, not '\(value)'")
                return 2
            }
            violationNumber = number
        }
        guard parsed.positionals.count == 1, let tracePath = parsed.positionals.first else {
            let problem = parsed.positionals.isEmpty ? "a trace file is required" : "expected one trace file"
            let message = "faultline check: \(problem); see 'faultline check --help'"
            return unusable(summary: message, details: [message], format: format, output: output, traceName: nil)
        }
        let name = tracePath == "-" ? "standard input" : ReportFormatter.traceFileName(tracePath)
        var contract = Contract.default
        if let contractPath = parsed.value("--contract") {
            do {
                contract = try ContractLoader.load(file: contractPath)
            } catch {
                var details: [String] = []
                if case .invalid(_, let errors) = error { details = errors.map(\.description) }
                let summary = "faultline check: " + error.summary
                details.append(summary)
                return unusable(summary: summary, details: details, format: format, output: output, traceName: name)
            }
        }
        let report: ContractReport
        do {
            report = try TraceFileReader.check(path: tracePath, contract: contract)
        } catch {
            return unusable(
                summary: error.description, details: [error.description], format: format, output: output,
                traceName: name)
        }
        let text: String
        switch format {
        case "json": text = ReportFormatter.json(report)
        case "junit": text = ReportFormatter.junit(report, traceName: name)
        case "html":
            text = ReportFormatter.html(report, traceName: name, spans: spans(of: report, tracePath: tracePath))
        case "svg":
            guard !report.violations.isEmpty else {
                printError("faultline check: no violation to draw; \(ReportFormatter.verdict(report, traceName: name))")
                return report.passed ? 0 : 1
            }
            let number = violationNumber ?? 1
            guard number <= report.violations.count else {
                let count = report.violations.count
                printError(
                    "faultline check: --violation \(number), but the report lists \(count) violation\(count == 1 ? "" : "s")"
                )
                return 2
            }
            let violation = report.violations[number - 1]
            let timeline = ViolationTimeline(violation: violation, spans: spans(of: report, tracePath: tracePath))
            text = SVGTimelineRenderer.document(
                timeline,
                title: "\(name): violation \(number) of \(report.violations.count), \(violation.clause.rawValue)")
        default: text = ReportFormatter.text(report, traceName: name)
        }
        guard write(text, to: output) else { return 2 }
        // The verdict still reaches the terminal when the report goes to a file.
        if output != nil { printError(ReportFormatter.verdict(report, traceName: name)) }
        return report.passed ? 0 : 1
    }

    /// The spans of the violations' requests, read from the trace a second time; none for
    /// standard input (it cannot be read twice), so bars then end at the answers the witnesses name.
    private static func spans(of report: ContractReport, tracePath: String) -> [UInt64: RequestSpan] {
        guard tracePath != "-" else { return [:] }
        return (try? TraceFileReader.requestSpans(path: tracePath, requests: report.witnessRequestSeqs)) ?? [:]
    }

    /// Unusable input: every line of `details` to standard error and, with `--format junit`, a
    /// JUnit report of one failing case carrying the error (to `--output` or standard output).
    /// Returns 2, the exit status for unusable input.
    private static func unusable(
        summary: String, details: [String], format: String, output: String?, traceName: String?
    ) -> Int32 {
        for line in details { printError(line) }
        if format == "junit" {
            _ = write(ReportFormatter.junitError(summary: summary, details: details, traceName: traceName), to: output)
        }
        return 2
    }

    /// Writes a report to the `--output` file, or to standard output without one; false (after
    /// saying why on standard error) when the file cannot be written.
    private static func write(_ text: String, to output: String?) -> Bool {
        guard let output else {
            FileHandle.standardOutput.write(Data(text.utf8))
            return true
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: output))
            return true
        } catch {
            printError("faultline check: cannot write \(output): \(error.localizedDescription)")
            return false
        }
    }
}
