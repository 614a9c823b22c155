import FaultlineConfig
import FaultlineContract
import FaultlineCore
import Foundation

/// `faultline check TRACE`: check a trace against the session-boundary contract.
///
/// Exit status: 0 when the contract holds (and the trace is sound), 1 with violations or trace
/// problems, 2 on unusable input (bad usage, unreadable trace, malformed trace line as
/// `TRACE:LINE: message`, bad contract file as `FILE:LINE:COLUMN: message`).
enum CheckCommand {
    static let specs: [OptionSpec] = [
        OptionSpec(
            name: "--contract", value: "FILE",
            help: "a contract file (JSON5): clauses on/off, callbacks, steps, cancel marks"),
        OptionSpec(name: "--format", value: "FORMAT", help: "text (default), json or junit"),
        OptionSpec(name: "--output", value: "FILE", help: "write the report to FILE instead of standard output"),
        OptionSpec(name: "--help", value: nil, help: "show this help"),
    ]

    static let help = helpText(
        command: "check", synopsis: "TRACE [--contract FILE] [--format text|json|junit] [--output FILE]",
        summary: """
            Reads a trace (a file, or - for standard input) and says which clause of the session-boundary \
            contract was broken, by which requests: \(ClauseID.allCases.map(\.rawValue).joined(separator: ", ")). \
            It also checks the trace itself (gapless seq, no secret in clear).
            Exit status: 0 when the contract holds, 1 with violations or trace problems, 2 on unusable input.
            Examples:
              faultline check trace.jsonl
              faultline check trace.jsonl --contract Rules/contracts/session.contract.json5 --format junit --output report.xml
            """,
        specs: specs)

    static let formats = ["text", "json", "junit"]

    static func run(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments.parse(arguments, specs: specs, command: "check")
        } catch {
            printError("\(error)")
            return 2
        }
        if parsed.has("--help") {
            print(help)
            return 0
        }
        guard parsed.positionals.count == 1, let tracePath = parsed.positionals.first else {
            let problem = parsed.positionals.isEmpty ? "a trace file is required" : "expected one trace file"
            printError("faultline check: \(problem); see 'faultline check --help'")
            return 2
        }
        let format = parsed.value("--format") ?? "text"
        guard formats.contains(format) else {
            var message = "faultline check: unknown format '\(format)'; use text, json or junit"
            if let near = EditDistance.nearest(to: format, in: formats) { message += " (did you mean '\(near)'?)" }
            printError(message)
            return 2
        }
        var contract = Contract.default
        if let contractPath = parsed.value("--contract") {
            let (loaded, errors) = ContractLoader.load(contentsOfFile: contractPath)
            guard let loaded, errors.isEmpty else {
                for error in errors { printError(error.description) }
                printError("faultline check: \(errors.count) error\(errors.count == 1 ? "" : "s") in \(contractPath)")
                return 2
            }
            contract = loaded
        }
        let report: ContractReport
        do {
            report = try TraceFileReader.check(path: tracePath, contract: contract)
        } catch {
            printError(error.description)
            return 2
        }
        let name = tracePath == "-" ? "standard input" : tracePath
        let text: String
        switch format {
        case "json": text = ReportFormatter.json(report)
        case "junit": text = ReportFormatter.junit(report, traceName: name)
        default: text = ReportFormatter.text(report, traceName: name)
        }
        if let outputPath = parsed.value("--output") {
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: outputPath))
            } catch {
                printError("faultline check: cannot write \(outputPath): \(error.localizedDescription)")
                return 2
            }
            // The verdict still reaches the terminal when the report goes to a file.
            printError(ReportFormatter.verdict(report, traceName: name))
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        return report.passed ? 0 : 1
    }
}
