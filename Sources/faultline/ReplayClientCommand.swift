import FaultlineCapture
import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlinePosix
import FaultlineReplayClient
import FaultlineTLS
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `faultline replay client CAPTURE --target URL`: send a capture's requests to a server again,
/// concurrently as recorded, and compare the answers with the recorded ones.
///
/// Exit status: 0 when the differences are within `--allow`, 1 beyond it, 2 on unusable input
/// (bad usage, a capture that cannot be read, as `FILE:LINE: message`, a plain trace, a target
/// that cannot be resolved or trusted). SIGINT or SIGTERM stops it with 128 + the signal.
enum ReplayClientCommand {
    static let specs: [OptionSpec] =
        OptionSpec.table(
            """
            --target URL              where the requests go: http://HOST:PORT[/prefix] or https://HOST[:PORT][/prefix]
            --speed N                 1 as recorded (default), 2 twice as fast, 0 as fast as possible
            --timeout SECONDS         the most one request may take, connecting included (default 30)
            --keep-host               send the recorded Host instead of the target's
            --secret PSEUDONYM=VALUE  the value of a secret only the client knows, such as a password (repeatable)
            --compare WHAT            status (default) or body: statuses and bodies, JSON value by value
            --allow N                 differences that still exit 0 (default 0)
            --format FORMAT           text (default) or json
            --target-ca FILE          also trust these PEM certificates for an https target
            --insecure-target         do not verify an https target's certificate (test servers only)
            --progress                progress lines on stderr even when it is not a terminal
            """) + [.helpOption]

    static let help = helpText(
        command: "replay client",
        synopsis: "CAPTURE --target URL [--speed N] [--compare status|body] [--allow N] [options]",
        summary: """
            Sends the requests of a capture (faultline run --capture) to a server again and compares the answers \
            with the recorded ones. Every request that went upstream is sent, in recorded order, with its recorded \
            method, path, query, headers and body (Host is the target's, hop-by-hop fields are dropped, framing is \
            recomputed). Requests that shared a client connection go in order on one connection; different \
            connections run side by side, each request no earlier than its recorded time divided by --speed.
            Credentials: a capture's secrets are pseudonyms (flp.KIND.LINEAGE.N). When a live answer issues a \
            credential where the recorded answer had one (a Set-Cookie value, a JSON string such as access_token), \
            later requests carry the live value instead. A request waits for the answer that issued what it presents, and \
            keeps its recorded order with the logins, refreshes and logouts of its session on other connections. \
            Give values only the client knew with --secret (a password): they are visible in the process list, so \
            use test accounts.
            The report (stdout) has one line per request, then the counts, the differences and the timing; URLs \
            and values are the capture's, never live credentials. Progress goes to stderr on a terminal (or with \
            --progress), with a final line always.
            Exit status: 0 when the differences are within --allow, 1 beyond, 2 on unusable input.
            Examples:
              faultline replay client capture.jsonl --target http://127.0.0.1:9000
              faultline replay client capture.jsonl --target https://staging.example.test --speed 0 --compare body \\
                --secret flp.password.none.1=test-password --allow 2 --format json
            """,
        specs: specs)

    static let formats = ["text", "json"]
    static let comparisons = ["status", "body"]

    static func run(_ arguments: [String]) -> Int32 {
        let invocation: Invocation
        do {
            guard
                let parsed = try ParsedArguments.parse(arguments, specs: specs, command: "replay client", help: help)
            else { return 0 }
            invocation = try Invocation(parsed)
        } catch {
            printError("\(error)")
            return 2
        }
        let capture: Capture
        do {
            capture = try CaptureLoader.load(path: invocation.capturePath)
        } catch {
            printError("faultline replay client: \(error)")
            return 2
        }
        guard capture.secrets != .fingerprints else {
            printError(
                "faultline replay client: \(invocation.capturePath) is a plain trace, not a capture: it has no bodies and its "
                    + "secrets are fingerprints; record one with 'faultline run --capture'")
            return 2
        }
        let credentials = CredentialMap(findsPseudonyms: capture.secrets == .pseudonyms, supplied: invocation.secrets)
        let plan = ReplayPlan(
            capture: capture, credentials: credentials)
        guard !plan.steps.isEmpty else {
            printError(
                "faultline replay client: no request in \(invocation.capturePath) went upstream; nothing to replay")
            return 2
        }
        for name in invocation.secrets.keys.sorted() where !plan.presents(name) {
            printError("faultline replay client: warning: --secret \(name): no recorded request presents it")
        }
        let target = invocation.options.target
        let addresses: [SocketAddress]
        let tls: TLSClientContext?
        do {
            addresses = try HostResolver.addressesNow(host: target.host, port: target.port)
            tls = try invocation.tlsContext()
        } catch {
            printError("faultline replay client: --target \(target): \(error)")
            return 2
        }
        stopOnTerminationSignal()
        let showsProgress = invocation.showsProgress || isatty(STDERR_FILENO) == 1
        let session = ReplaySession(plan: plan, options: invocation.options, credentials: credentials)
        let report = ReplayDriver.run(session, capture: invocation.capturePath, addresses: addresses, tls: tls) {
            line in
            if showsProgress { printError(line) }
        }
        let text = invocation.format == "json" ? ReplayReportFormatter.json(report) : ReplayReportFormatter.text(report)
        FileHandle.standardOutput.write(Data(text.utf8))
        printError(
            ReplayProgressMeter.line(
                finished: report.results.count, total: report.results.count, differences: report.differenceCount,
                elapsed: report.replaySpan) + ": " + ReplayReportFormatter.verdict(report))
        return report.passed ? 0 : 1
    }

    /// SIGINT and SIGTERM are blocked in every thread (main.swift) so the proxy can shut down
    /// cleanly; a replay has nothing to flush, so it just stops.
    private static func stopOnTerminationSignal() {
        Thread.detachNewThread {
            let signal = TerminationSignals.wait()
            printError("faultline replay client: stopped by \(TerminationSignals.name(signal))")
            exit(128 + signal)
        }
    }

    /// The command line, checked.
    struct Invocation {
        var capturePath: String
        var options: ReplayOptions
        var secrets: [String: String] = [:]
        var format = "text"
        var showsProgress = false
        var targetCA: String?
        var insecureTarget = false

        init(_ parsed: ParsedArguments) throws(UsageError) {
            let command = "faultline replay client"
            guard parsed.positionals.count == 1, let path = parsed.positionals.first else {
                let problem = parsed.positionals.isEmpty ? "a capture file is required" : "expected one capture file"
                throw UsageError(description: "\(command): \(problem); see 'faultline replay client --help'")
            }
            capturePath = path
            guard let targetText = parsed.value("--target") else {
                throw UsageError(
                    description:
                        "\(command): --target URL is required (where the requests go, such as http://127.0.0.1:9000)")
            }
            do {
                options = ReplayOptions(target: try UpstreamEndpoint(url: targetText))
            } catch {
                throw UsageError(description: "\(command): --target: \(error)")
            }
            options.keepHost = parsed.has("--keep-host")
            if let text = parsed.value("--speed") {
                guard let speed = Double(text), speed.isFinite, speed >= 0, speed <= 1_000_000 else {
                    throw UsageError(
                        description: "\(command): --speed takes a number from 0 (as fast as possible) up, not '\(text)'"
                    )
                }
                options.speed = speed
            }
            if let text = parsed.value("--timeout") {
                guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 86_400 else {
                    throw UsageError(
                        description: "\(command): --timeout takes seconds above 0 (at most 86400), not '\(text)'")
                }
                options.timeout = .seconds(fractional: seconds)
            }
            if let text = parsed.value("--allow") {
                guard let allowed = Int(text), allowed >= 0 else {
                    throw UsageError(
                        description: "\(command): --allow takes a number of differences from 0 up, not '\(text)'")
                }
                options.allowedDifferences = allowed
            }
            let comparison = parsed.value("--compare") ?? "status"
            guard ReplayClientCommand.comparisons.contains(comparison) else {
                throw UsageError(description: Self.unknown("--compare", comparison, ReplayClientCommand.comparisons))
            }
            options.comparesBodies = comparison == "body"
            format = parsed.value("--format") ?? "text"
            guard ReplayClientCommand.formats.contains(format) else {
                throw UsageError(description: Self.unknown("--format", format, ReplayClientCommand.formats))
            }
            for text in parsed.values("--secret") {
                guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                    throw UsageError(
                        description: "\(command): --secret takes PSEUDONYM=VALUE, such as flp.password.none.1=VALUE")
                }
                secrets[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            showsProgress = parsed.has("--progress")
            targetCA = parsed.value("--target-ca")
            insecureTarget = parsed.has("--insecure-target")
            if options.target.scheme != "https",
                let option = ["--target-ca", "--insecure-target"].first(where: parsed.has)
            {
                throw UsageError(description: "\(command): \(option) goes with an https:// --target")
            }
        }

        /// The TLS client context for an https target; nil for http.
        func tlsContext() throws -> TLSClientContext? {
            guard options.target.scheme == "https" else { return nil }
            return try TLSClientContext(verify: !insecureTarget, extraTrustAnchorsPEMFile: targetCA)
        }

        private static func unknown(_ option: String, _ value: String, _ known: [String]) -> String {
            var message =
                "faultline replay client: unknown \(option) '\(value)'; use \(known.joined(separator: " or "))"
            if let near = EditDistance.nearest(to: value, in: known) { message += " (did you mean '\(near)'?)" }
            return message
        }
    }
}
