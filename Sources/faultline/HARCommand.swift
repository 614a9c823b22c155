import FaultlineCapture
import FaultlineCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `faultline har export|import`: a trace or capture as HAR 1.2, and a HAR file (mitmproxy's,
/// a browser's, faultline's own) as a capture that `replay` and `check` read.
///
/// Exit statuses: 0 done, 1 the output file could not be written, 2 bad usage or an input that
/// cannot be read (its error names the place: `TRACE:LINE: message`, or
/// `FILE.har: entries[3].request.url: message`). Data goes to stdout (`export` without an
/// output file); notes, warnings and the summary go to stderr.
enum HARCommand {
    static let outputNames = ["--output", "-o"]

    static let exportSpecs =
        OptionSpec.table(
            """
            --output FILE  write the HAR to FILE (replaced if it exists) instead of stdout
            -o FILE        same as --output
            """) + [.helpOption]

    static let importSpecs =
        OptionSpec.table(
            """
            --output FILE  the capture file to write (replaced if it exists); required
            -o FILE        same as --output
            """) + [.helpOption]

    static let help = """
        usage: faultline har export TRACE_OR_CAPTURE [-o FILE]
               faultline har import FILE.har -o CAPTURE

        export   writes a trace or a capture (faultline run --capture) as a HAR 1.2 document, one entry
                 per exchange that got a response, with faultline's IDs in _faultline fields
                 (faultline har export --help)
        import   reads a HAR file (mitmproxy, a browser, faultline) into a capture that faultline replay
                 and faultline check read (faultline har import --help)
        """

    static let exportHelp = helpText(
        command: "har export", synopsis: "TRACE_OR_CAPTURE [-o FILE]",
        summary: """
            Writes the exchanges of a trace or capture as HAR 1.2 (to stdout, or to FILE). Secrets stay as the \
            file has them: pseudonyms flp.KIND.LINEAGE.N in a capture, fp:… fingerprints in a plain trace, which \
            has no bodies either (the HAR says so). A capture made with --capture-secrets keep gives a HAR with \
            raw secrets: its file is created with mode 0600.
            Exit status: 0 when written, 1 when FILE cannot be written, 2 on bad usage or an unreadable input.
            Example: faultline har export capture.jsonl -o session.har
            """,
        specs: exportSpecs)

    static let importHelp = helpText(
        command: "har import", synopsis: "FILE.har -o CAPTURE",
        summary: """
            Reads a HAR 1.2 file into a capture: each entry becomes an exchange with its bodies, timed from \
            startedDateTime and timings. Entries without a response (status 0) and CONNECT tunnels are skipped, \
            HTTP/2 pseudo-header and hop-by-hop fields dropped, each noted on stderr. A HAR from another tool \
            holds credentials in clear, so the capture keeps them raw ("secrets":"kept", mode 0600) unless every \
            secret in it is already a pseudonym or fingerprint.
            Exit status: 0 when written, 1 when CAPTURE cannot be written, 2 on bad usage or a malformed HAR \
            (the error names the entry and field).
            Example: faultline har import session.har -o session.capture.jsonl
            """,
        specs: importSpecs)

    static func run(_ arguments: [String]) -> Int32 {
        guard let first = arguments.first, first != "--help", first != "-h" else {
            print(help)
            return arguments.isEmpty ? 2 : 0
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch first {
            case "export": return try export(rest)
            case "import": return try importHAR(rest)
            default:
                var message = "faultline har: expected 'export' or 'import', not '\(first)'"
                if let near = EditDistance.nearest(to: first, in: ["export", "import"]) {
                    message += " (did you mean '\(near)'?)"
                }
                throw UsageError(description: message + "; see 'faultline har --help'")
            }
        } catch let usage as UsageError {
            printError(usage.description)
            return 2
        } catch let unreadable as CaptureLoadError {
            printError(unreadable.message)
            return 2
        } catch {
            printError("faultline har \(first): \(error)")
            return 1
        }
    }

    static func export(_ arguments: [String]) throws -> Int32 {
        guard
            case let (parsed, input)? = try parse(
                arguments, specs: exportSpecs, command: "har export", help: exportHelp, input: "a trace or capture file"
            )
        else { return 0 }
        let capture = try CaptureLoader.load(path: input)
        for note in capture.notes { printError(note) }
        let har = HARExporter.har(from: capture)
        let raw = capture.secrets == .kept
        let destination = output(parsed).flatMap { $0 == "-" ? nil : $0 }  // nil: stdout
        if let destination {
            try OutputFile.write(har, to: destination, holdsRawSecrets: raw)
        } else {
            try writeToStandardOutput(har)
        }
        let entries = HARExporter.exportedExchanges(of: capture).count
        printError("faultline har export: \(entries) entries from \(input) to \(destination ?? "stdout")")
        if raw {
            printError(
                "faultline har export: WARNING: the HAR holds raw secrets (the capture kept them)"
                    + (destination.map { "; \($0) is mode 0600" } ?? "") + "; do not share it")
        }
        return 0
    }

    static func importHAR(_ arguments: [String]) throws -> Int32 {
        guard
            case let (parsed, input)? = try parse(
                arguments, specs: importSpecs, command: "har import", help: importHelp, input: "a HAR file")
        else { return 0 }
        guard let output = output(parsed) else {
            throw UsageError(description: "faultline har import: -o CAPTURE is required (the capture file to write)")
        }
        let bytes = try CaptureLoader.contents(path: input)
        guard HARImporter.looksLikeHAR(bytes) else {
            throw CaptureLoadError("\(input): not a HAR file (HAR is one JSON object with a \"log\" member)")
        }
        let capture = try HARImporter.capture(fromHAR: bytes, source: input)
        let raw = capture.secrets == .kept
        if output == "-" {
            guard !raw else {
                throw UsageError(
                    description:
                        "faultline har import: the capture keeps raw secrets, so it needs -o FILE (created with mode 0600), not stdout"
                )
            }
            try writeToStandardOutput(Array(CaptureWriter.text(capture).utf8))
        } else {
            try CaptureWriter.write(capture, toFile: output)
        }
        for note in capture.notes { printError(note) }
        let secrets =
            raw
            ? "secrets kept raw (the HAR may hold credentials in clear): \(output) is mode 0600, do not share it"
            : "secrets are \(capture.secrets.rawValue)"
        printError("faultline har import: \(capture.exchanges.count) exchanges from \(input) to \(output); \(secrets)")
        return 0
    }

    /// The options and the one input file (`what` names it in the error when it is missing);
    /// nil when `--help` was answered.
    static func parse(
        _ arguments: [String], specs: [OptionSpec], command: String, help: String, input what: String
    ) throws(UsageError) -> (ParsedArguments, input: String)? {
        guard let parsed = try ParsedArguments.parse(arguments, specs: specs, command: command, help: help) else {
            return nil
        }
        guard parsed.positionals.count == 1, let input = parsed.positionals.first else {
            let problem =
                parsed.positionals.count > 1
                ? "expected one input file, got \(parsed.positionals.count)" : "\(what) is required"
            throw UsageError(description: "faultline \(command): \(problem); see 'faultline \(command) --help'")
        }
        return (parsed, input)
    }

    /// `--output` or `-o`, whichever came last.
    static func output(_ parsed: ParsedArguments) -> String? {
        parsed.options.last { outputNames.contains($0.name) }?.value
    }

    static func writeToStandardOutput(_ bytes: [UInt8]) throws(CommandFailure) {
        try CACommand.writeAll(bytes, to: STDOUT_FILENO, name: "stdout")
    }
}
