import FaultlineCapture
import FaultlineCore
import FaultlineFlow
import FaultlineProxy
import FaultlineReplay
import FaultlineServer
import FaultlineTrace
import Foundation

/// `faultline replay serve CAPTURE`: a proxy (and, with `--mode origin`, an origin) that answers
/// every request from a capture, with rules, holds and the trace working on top as on a live run.
enum ReplayServeCommand {
    static let specs: [OptionSpec] = OptionSpec.table(
        """
        --match PARTS            what must equal the recorded request: a comma list of method, scheme, host, port, path, query, body, credentials, header:NAME (default: all but header:NAME)
        --ignore-param NAME      a query, form or JSON field that never decides a match (repeatable; _, cb, cachebuster, nonce, timestamp and ts always are)
        --repeat POLICY          once a request's recorded answers are used: last (default: the last again), cycle, or none (unmatched)
        --unmatched WHAT         error (default: 502 naming the nearest recorded request) or forward (send it to the network)
        --order ORDER            free (default) or recorded: hold each answer until what came before its delivery in the capture has happened
        --order-timeout SECONDS  with --order recorded, how long an answer waits for the recorded order before it goes anyway (default 10)
        --clock CLOCK            the time answers tell: shift (default: recorded times move by the distance from the recorded request to this one), recorded, or frozen=TIME (RFC 3339 or epoch seconds)
        --now TIME               start this run's clock at TIME (RFC 3339 or epoch seconds) rather than the system's, for tests
        """)

    static let help = helpText(
        command: "replay serve",
        synopsis:
            "CAPTURE [--listen ADDR [--mode forward|origin|reverse:URL]]... [--rules DIR] [--trace FILE|-] [options]",
        summary: """
            Answers requests from CAPTURE (a capture from 'faultline run --capture', a trace, or a HAR file) \
            instead of any upstream. A --listen is a forward proxy (absolute-form requests, and CONNECT, with \
            TLS interception for every host); --mode origin makes it the capture's origin for clients that \
            cannot use a proxy (reverse:URL picks one origin of several). Identical requests get the recorded \
            responses in recorded order. Logins and refreshes hand out fresh tokens in place of the recorded \
            ones, and requests presenting them match the recorded requests. Nothing reaches the network \
            unless --unmatched forward says so. Rules (--rules), holds, the control API and the trace work \
            as for 'faultline run', whose options all apply.
            Examples:
              faultline replay serve capture.jsonl --listen 127.0.0.1:8080 --trace replay.jsonl
              faultline replay serve capture.jsonl --listen 127.0.0.1:9000 --mode origin --rules Rules
              faultline replay serve capture.jsonl --order recorded --listen 127.0.0.1:8080
              faultline replay serve capture.jsonl --clock frozen=2030-01-01T00:00:00Z --listen 127.0.0.1:8080
            """,
        specs: specs + RunCommand.specs + CAOptions.specs)

    static func run(_ arguments: [String]) -> Int32 {
        let allSpecs = specs + RunCommand.specs + CAOptions.specs
        let command = "replay serve"
        var parsed: ParsedArguments
        let capture: Capture
        let settings: ReplaySettings
        do {
            guard let given = try ParsedArguments.parse(arguments, specs: allSpecs, command: command, help: help)
            else { return 0 }
            parsed = given
            guard parsed.positionals.count == 1, let path = parsed.positionals.first else {
                throw UsageError(
                    description:
                        "faultline replay serve: expected one CAPTURE file (\(parsed.positionals.count) given); see 'faultline replay serve --help'"
                )
            }
            do {
                capture = try CaptureLoader.load(path: path)
            } catch {
                throw UsageError(description: "faultline replay serve: \(error)")
            }
            settings = try replaySettings(parsed)
            // `--mode origin` names the capture's origin: known only now.
            let expanded = try expandOriginModes(arguments, capture: capture)
            parsed = try ParsedArguments.parse(expanded, specs: allSpecs, command: command)
        } catch {
            printError("\(error)")
            return 2
        }
        if capture.answeredExchanges.isEmpty {
            printError(
                "faultline replay serve: \(capture.source) holds no exchange an upstream answered; every request will be unmatched"
            )
        }
        return RunCommand.serve(parsed, command: command) { configuration, trace in
            var settings = settings
            settings.secrets = trace.redaction
            let source = ReplaySource(capture: capture, settings: settings) { printError($0) }
            configuration.replay = source
            source.follow(trace)
            var lines = [
                "faultline: replaying \(capture.source): \(source.replayableCount) recorded exchanges"
                    + "\(capture.hasBodies ? "" : " (a trace without bodies: answers have empty bodies)"); "
                    + "unmatched requests \(settings.unmatched == .forward ? "go to the network" : "get a 502, nothing reaches the network")"
            ]
            if settings.order == .recorded {
                lines.append(
                    "faultline: answers wait for the recorded order (at most \(settings.orderTimeout.inSeconds)s each)")
            }
            if settings.clock != ReplayClock() {
                var clock = "faultline: answers' times: --clock \(settings.clock.mode)"
                if let start = settings.clock.startsAt {
                    clock += "; this run's clock starts at \(RFC3339Date.format(seconds: start) ?? String(start))"
                }
                lines.append(clock)
            }
            lines += source.loadWarnings
            if capture.secrets == .kept {
                lines.append("faultline: WARNING: \(capture.source) holds raw secrets")
            }
            return lines
        }
    }

    static func replaySettings(_ parsed: ParsedArguments) throws(UsageError) -> ReplaySettings {
        var settings = ReplaySettings()
        if let text = parsed.value("--match") {
            var parts: [ReplaySettings.MatchPart] = []
            for item in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty
            {
                guard let part = ReplaySettings.MatchPart(parsing: item) else {
                    throw UsageError(
                        description:
                            "faultline replay serve: --match: unknown part '\(item)'; expected method, scheme, host, port, path, query, body, credentials or header:NAME"
                    )
                }
                parts.append(part)
            }
            guard !parts.isEmpty else {
                throw UsageError(description: "faultline replay serve: --match needs at least one part")
            }
            settings.match = parts
        }
        settings.ignoredParameters.formUnion(parsed.values("--ignore-param").map { $0.lowercased() })
        /// The option's value as `read` takes it; a usage error naming `expected` when it does not.
        func option<Value>(_ name: String, expected: String, _ read: (String) -> Value?) throws(UsageError) -> Value? {
            guard let text = parsed.value(name) else { return nil }
            guard let value = read(text) else {
                throw UsageError(description: "faultline replay serve: \(name) takes \(expected), not '\(text)'")
            }
            return value
        }
        func choice<Value: RawRepresentable & CaseIterable>(_ name: String, _ type: Value.Type) throws(UsageError)
            -> Value?
        where Value.RawValue == String {
            try option(name, expected: Value.allCases.map(\.rawValue).joined(separator: ", "), Value.init(rawValue:))
        }
        if let value = try choice("--repeat", ReplaySettings.Repeat.self) { settings.repeatPolicy = value }
        if let value = try choice("--unmatched", ReplaySettings.Unmatched.self) { settings.unmatched = value }
        if let value = try choice("--order", ReplaySettings.Order.self) { settings.order = value }
        if let timeout = try parsed.seconds("--order-timeout", command: "replay serve") {
            settings.orderTimeout = timeout
        }
        let time = "RFC 3339 like 2026-12-07T10:00:00Z, or epoch seconds"
        if let mode = try option(
            "--clock", expected: "shift, recorded or frozen=TIME (TIME: \(time))", ReplayClock.Mode.init)
        {
            settings.clock.mode = mode
        }
        if let start = try option("--now", expected: "a time, \(time)", ReplayClock.seconds) {
            settings.clock.startsAt = start
        }
        return settings
    }

    /// `--mode origin` becomes `--mode reverse:URL` for the capture's one origin; a capture with
    /// several origins needs the URL spelled out.
    static func expandOriginModes(_ arguments: [String], capture: Capture) throws(UsageError) -> [String] {
        var origins: [String] = []
        for exchange in capture.answeredExchanges {
            let origin = exchange.upstreamRequest!.url.origin
            if !origins.contains(origin) { origins.append(origin) }
        }
        var expanded = arguments
        for index in expanded.indices.dropLast() where expanded[index] == "--mode" && expanded[index + 1] == "origin" {
            guard origins.count == 1 else {
                throw UsageError(
                    description:
                        "faultline replay serve: --mode origin needs a capture with one origin; \(capture.source) has "
                        + (origins.isEmpty
                            ? "none"
                            : "\(origins.count): \(origins.joined(separator: ", ")); pick one with --mode reverse:URL"))
            }
            expanded[index + 1] = "reverse:" + origins[0]
        }
        return expanded
    }
}
