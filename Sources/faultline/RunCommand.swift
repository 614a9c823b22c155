import FaultlineConfig
import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlinePosix
import FaultlineProxy
import FaultlineRules
import FaultlineServer
import FaultlineTLS
import FaultlineTrace
import Foundation

/// `faultline run`: start the proxy and write the trace until SIGINT or SIGTERM.
enum RunCommand {
    static let specs: [OptionSpec] =
        OptionSpec.table(
            """
            --listen ADDR                    address to listen on (default 127.0.0.1:8080); repeat for several listeners
            --mode MODE                      forward (default) or reverse:http(s)://HOST:PORT, for the --listen before it
            --tls                            the --listen before it speaks TLS (certificate from the Faultline CA for the SNI name or address)
            --rules DIR                      load rule files (*.json5) from DIR and reload them when they change
            --trace FILE                     where the event trace goes: a file, or - for stdout (default -)
            --redact-header NAME             also fingerprint this header's values (repeatable)
            --redact-query NAME              also fingerprint this query parameter (repeatable)
            --capture                        make the trace a capture: it also keeps each exchange's bodies, with secrets as pseudonyms
            --capture-body-limit BYTES       bytes kept of each body in a capture; longer ones are marked truncated (default 1048576)
            --capture-secrets MODE           pseudonyms (default) or keep: write raw secrets in the capture (file mode 0600)
            --connect-timeout SECONDS        upstream connect timeout, 504 after (default 10)
            --response-timeout SECONDS       wait for an upstream response head, 504 after (default 60)
            --idle-timeout SECONDS           close idle client connections after (default 120)
            --header-timeout SECONDS         time from a request head's first byte to its end, 408 after; HTTP/2: an unfinished header block, GOAWAY after (default 10)
            --body-timeout SECONDS           longest wait for the next byte of a request body being read, 408 after; HTTP/2: per stream, DATA (default 60)
            --send-timeout SECONDS           longest a client may read none of the output waiting for it, connection closed after (default 60)
            --shutdown-grace SECONDS         on SIGINT/SIGTERM, let HTTP/2 streams in flight finish for up to this long after GOAWAY (default 5; 0 cuts at once; a second signal cuts at once too)
            --loops N                        event-loop threads (default: one per CPU)
            --max-connections N              most client connections at once; past it HTTP/1 clients get 503 and others are closed (default: from the open-file limit)
            --max-upstream-connects N        new upstream connections opened at once per origin and event loop; more wait in a queue (default 32)
            --upstream-connect-queue N       connects that may wait per event loop; past it the request gets 503 connect-queue-full (default 1024)
            --http1-only                     speak HTTP/1.1 only: no h2 in TLS ALPN (clients and upstreams), no h2c with prior knowledge (default: HTTP/2 wherever the peer speaks it)
            --upstream-h2c                   speak HTTP/2 with prior knowledge to plain http:// upstreams (h2c: gRPC and other HTTP/2-only backends)
            --intercept HOST-GLOB            open up TLS only for CONNECTs to these hosts (repeatable; default: every host)
            --ignore HOST-GLOB               tunnel CONNECTs to these hosts untouched (repeatable)
            --upstream-ca FILE               also trust these PEM certificates when verifying upstream servers
            --insecure-upstream              do not verify upstream certificates (for test backends only)
            --tls-handshake-timeout SECONDS  drop a TLS handshake that takes longer (default 10)
            --control ADDR                   control API address (default 127.0.0.1:0, an ephemeral port); 'off' turns it off
            --control-token TOKEN            the control API's bearer token (default: 32 random bytes, written to the control file only)
            --control-file PATH              where the control URL and token go, mode 0600 (default $FAULTLINE_HOME/control.json or ~/.faultline/control.json)
            """) + [.helpOption]

    static let help = helpText(
        command: "run", synopsis: "[--listen ADDR [--mode MODE]]... [--trace FILE|-] [options]",
        summary: """
            Runs the proxy. Clients use it as an HTTP proxy (http_proxy=http://ADDR) in forward mode, or \
            send their requests to it directly in reverse mode. Every connection, request and response \
            is written to the trace as JSON Lines; credentials appear only as fingerprints.
            A control API (HTTP+JSON) listens on --control; 'faultline holds', 'release', 'fail', 'mark', \
            'state' and 'rules enable|disable' find it through the control file, and 'faultline ui' prints \
            the address of the web UI it serves under /ui/.
            Examples:
              faultline run --listen 127.0.0.1:8080 --trace trace.jsonl
              faultline run --listen 127.0.0.1:9000 --mode reverse:http://127.0.0.1:3000
            """,
        specs: specs + CAOptions.specs)

    static func run(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        do {
            guard
                let given = try ParsedArguments.parse(
                    arguments, specs: specs + CAOptions.specs, command: "run", help: help)
            else { return 0 }
            try given.refuseExtraPositionals(command: "run")
            parsed = given
        } catch {
            printError("\(error)")
            return 2
        }
        return serve(parsed, command: "run") { _, _ in [] }
    }

    /// Runs a server as the options of `faultline run` say until SIGINT or SIGTERM, with
    /// `prepare` adding its own parts to the configuration (`faultline replay serve` adds the
    /// replay) once the trace exists; the lines it returns follow the banner.
    static func serve(
        _ parsed: ParsedArguments, command: String,
        prepare: (inout ServerConfiguration, TraceRecorder) throws -> [String]
    ) -> Int32 {
        var configuration: ServerConfiguration
        var tlsNotice: String?
        let output: TraceOutput
        let capture: CaptureOptions?
        let controlAddress: SocketAddress?
        do {
            configuration = try serverConfiguration(parsed)
            do {
                configuration.tls = try tlsConfiguration(parsed, listeners: configuration.listeners)
            } catch let failure as CommandFailure where !needsTLS(parsed, configuration) {
                // Faultline's own CA cannot be made here (an unwritable home, say): a plain HTTP
                // proxy is still useful, so run without interception and say why.
                tlsNotice = "faultline \(command): TLS interception is off (CONNECT is tunnelled): \(failure)"
            }
            let tracePath = parsed.value("--trace") ?? "-"
            output = tracePath == "-" ? .standardOutput : .file(path: tracePath)
            capture = try captureOptions(parsed, output: output)
            controlAddress = try control(parsed)
        } catch let failure as CommandFailure {
            printError("faultline \(command): \(failure)")
            return 1
        } catch {
            printError("\(error)")
            return 2
        }

        var ruleSet: RuleSet? = nil
        var ruleWarnings: [String] = []
        if let directory = parsed.value("--rules") {
            let report = RuleSetLoader.load(directory: directory)
            if !report.errors.isEmpty {
                for error in report.errors { printError(error.description) }
                // A folder that cannot be read said all there is to say.
                if !report.files.isEmpty {
                    printError(
                        "faultline \(command): the rules in \(directory) have errors; fix them or run 'faultline rules check \(directory)'"
                    )
                }
                return 2
            }
            ruleSet = report.ruleSet
            ruleWarnings = report.warningLines.map { "faultline \(command): \($0)" }
        }
        let trace: TraceRecorder
        do {
            trace = try TraceRecorder(
                output: output, redaction: redactionPolicy(parsed, profile: ruleSet?.profile), capture: capture)
        } catch {
            printError("faultline \(command): cannot write the trace: \(error)")
            return 1
        }
        let extraBanner: [String]
        do {
            extraBanner = try prepare(&configuration, trace)
        } catch {
            trace.close()
            printError("\(error)")
            return error is CommandFailure ? 1 : 2
        }
        var control: ControlConfiguration? = nil
        if let controlAddress {
            do {
                let token = try parsed.value("--control-token") ?? ControlToken.generate()
                control = ControlConfiguration(
                    address: controlAddress, token: token, rulesDirectory: parsed.value("--rules"))
            } catch {
                trace.close()
                printError("faultline \(command): \(error)")
                return 1
            }
        }
        let server = ProxyServer(configuration: configuration, trace: trace, ruleSet: ruleSet, control: control)
        do {
            try server.start()
        } catch {
            trace.close()
            printError("faultline \(command): \(error)")
            return 1
        }
        var notices: [String] =
            (tlsNotice.map { [$0] } ?? []) + ruleWarnings
            + openFileNotices(command: command, maximumConnections: configuration.maximumConnections)
        let controlFile = control.flatMap {
            publish($0, server: server, path: parsed.value("--control-file"), notices: &notices)
        }
        if let control, control.isReachableBeyondLoopback, let address = server.controlAddress {
            // A caller on another machine (the host of a container) cannot read the control file.
            notices.append(
                "faultline: WARNING: the control API on \(address) can be reached from other machines; only its token guards it"
            )
            notices.append(
                "faultline: control token: \(parsed.has("--control-token") ? "(given with --control-token)" : control.token)"
            )
        }
        let watcher = parsed.value("--rules").map { directory in
            RulesWatcher(directory: directory, runtime: server.rules, trace: trace) { printError($0) }
        }
        var lines = [banner(server: server, output: output, capture: capture)] + extraBanner
        if let directory = parsed.value("--rules"), let ruleSet {
            lines.append(rulesLine(directory: directory, ruleSet))
        }
        if controlFile != nil {
            lines.append(
                "faultline: web UI: 'faultline ui' prints its address; 'faultline holds' and 'faultline release NAME' drive holds"
            )
        }
        printError(lines.joined(separator: "\n"))
        // After the banner, which tools read as the first "faultline " line.
        for notice in notices { printError(notice) }
        let signal = TerminationSignals.wait()
        if configuration.shutdownGracePeriod > .zero {
            // A second Ctrl-C is the usual way to say "don't wait": it ends the grace period.
            // The thread is left waiting when none comes; the process ends without it.
            Thread.detachNewThread {
                let second = TerminationSignals.wait()
                printError("faultline: second \(TerminationSignals.name(second)): closing what is still open")
                server.endShutdownGrace()
            }
        }
        watcher?.stop()
        // HTTP/2 connections drain (GOAWAY, their open streams finish) for up to the grace period.
        let ending = server.stop()
        controlFile?.remove(ifOwnedBy: getpid())
        trace.close()
        switch ending {
        case .drained:
            break
        case .cutAtDeadline:
            let grace = configuration.shutdownGracePeriod.inSeconds.formatted(.number)
            printError("faultline: HTTP/2 streams still open after the \(grace) s shutdown grace period were cut")
        case .cutEarly:
            printError("faultline: HTTP/2 streams still open at the second signal were cut")
        }
        printError("faultline: stopped by \(TerminationSignals.name(signal)); \(trace.eventCount) events traced")
        return 0
    }

    /// `--capture` and its companions; nil for a plain trace.
    static func captureOptions(_ parsed: ParsedArguments, output: TraceOutput) throws(UsageError) -> CaptureOptions? {
        guard parsed.has("--capture") else {
            if let stray = ["--capture-body-limit", "--capture-secrets"].first(where: parsed.has) {
                throw UsageError(description: "faultline run: \(stray) needs --capture")
            }
            return nil
        }
        var options = CaptureOptions()
        if let text = parsed.value("--capture-body-limit") {
            guard let limit = Int(text), limit >= 0, limit <= 1 << 30 else {
                throw UsageError(
                    description:
                        "faultline run: --capture-body-limit takes a number of bytes from 0 to 1073741824, not '\(text)'"
                )
            }
            options.bodyLimit = limit
        }
        if let text = parsed.value("--capture-secrets") {
            guard let secrets = CaptureOptions.Secrets(rawValue: text) else {
                throw UsageError(
                    description: "faultline run: --capture-secrets takes pseudonyms or keep, not '\(text)'")
            }
            options.secrets = secrets
        }
        if options.secrets == .keep, case .standardOutput = output {
            throw UsageError(
                description:
                    "faultline run: --capture-secrets keep writes raw secrets, so it needs --trace FILE (created with mode 0600), not stdout"
            )
        }
        return options
    }

    /// The built-in secret names, `--redact-header`/`--redact-query`, and where the auth profile
    /// says credentials travel.
    static func redactionPolicy(_ parsed: ParsedArguments, profile: AuthProfile?) -> RedactionPolicy {
        let fromProfile = profile?.secretFieldNames ?? (headers: [], bodyFields: [])
        return RedactionPolicy(
            extraHeaderNames: parsed.values("--redact-header") + fromProfile.headers,
            extraQueryParameters: parsed.values("--redact-query"), extraBodyFields: fromProfile.bodyFields)
    }

    /// Pairs each `--mode` with the `--listen` before it. A `--mode` with no `--listen` at all
    /// applies to the default listener; one before the first of several `--listen`s is refused,
    /// naming the order that says what the user meant (it used to open an unasked-for listener on
    /// the default address and leave the later `--listen` a forward proxy).
    static func serverConfiguration(_ parsed: ParsedArguments) throws(UsageError) -> ServerConfiguration {
        var listeners: [ListenerConfiguration] = []
        var modeSeen = false
        var leadingMode: String?
        for option in parsed.options where ["--listen", "--mode", "--tls"].contains(option.name) {
            let value = option.value ?? ""
            if option.name == "--listen" {
                if let leadingMode {
                    throw UsageError(
                        description:
                            "faultline run: --mode \(leadingMode) comes before any --listen, but each --mode applies to the --listen before it; write --listen \(value) --mode \(leadingMode) (without --listen, --mode applies to the default 127.0.0.1:8080)"
                    )
                }
                listeners.append(ListenerConfiguration(address: try address(value), mode: .forward))
                modeSeen = false
                continue
            }
            if option.name == "--tls" {
                guard !listeners.isEmpty else {
                    throw UsageError(
                        description: "faultline run: --tls applies to the --listen before it; put it after one")
                }
                listeners[listeners.count - 1].tls = true
                continue
            }
            if modeSeen {
                throw UsageError(description: "faultline run: two --mode options for one --listen")
            }
            modeSeen = true
            let mode: ProxyMode
            do { mode = try ProxyMode(parsing: value) } catch {
                throw UsageError(description: "faultline run: --mode: \(error)")
            }
            if listeners.isEmpty {
                leadingMode = value
                listeners.append(ListenerConfiguration(address: try address("127.0.0.1:8080"), mode: mode))
            } else {
                listeners[listeners.count - 1].mode = mode
            }
        }
        if listeners.isEmpty {
            listeners = [ListenerConfiguration(address: try address("127.0.0.1:8080"), mode: .forward)]
        }
        var configuration = ServerConfiguration(listeners: listeners)
        if parsed.value("--loops") != nil {  // absent: one loop per CPU
            configuration.loopCount = try parsed.integer(
                "--loops", default: 1, in: 1...256, command: "run", unit: "a number")
        }
        if let seconds = try duration(parsed, "--connect-timeout") { configuration.connectTimeout = seconds }
        if let seconds = try duration(parsed, "--response-timeout") { configuration.proxy.responseTimeout = seconds }
        if let seconds = try duration(parsed, "--idle-timeout") { configuration.proxy.clientIdleTimeout = seconds }
        if let seconds = try duration(parsed, "--header-timeout") { configuration.proxy.headerTimeout = seconds }
        if let seconds = try duration(parsed, "--body-timeout") { configuration.proxy.bodyTimeout = seconds }
        if let seconds = try duration(parsed, "--send-timeout") { configuration.sendTimeout = seconds }
        configuration.http2PriorKnowledge = !parsed.has("--http1-only")
        if parsed.has("--upstream-h2c") {
            guard !parsed.has("--http1-only") else {
                throw UsageError(description: "faultline run: --upstream-h2c and --http1-only contradict each other")
            }
            configuration.upstreamHTTP2PriorKnowledge = true
        }
        let openFiles = ResourceLimits.raiseOpenFileLimit()
        configuration.maximumConnections = try parsed.integer(
            "--max-connections", default: ServerConfiguration.defaultMaximumConnections(openFiles: openFiles.soft),
            in: 1...10_000_000, command: "run", unit: "a number")
        configuration.upstreamConnects.perOrigin = try parsed.integer(
            "--max-upstream-connects", default: configuration.upstreamConnects.perOrigin, in: 1...100_000,
            command: "run", unit: "a number")
        configuration.upstreamConnects.queue = try parsed.integer(
            "--upstream-connect-queue", default: configuration.upstreamConnects.queue, in: 0...1_000_000,
            command: "run", unit: "a number")
        configuration.shutdownGracePeriod = .seconds(5)
        if let text = parsed.value("--shutdown-grace") {
            guard let seconds = Double(text), seconds >= 0, seconds <= 3600 else {
                throw UsageError(
                    description:
                        "faultline run: --shutdown-grace takes a number of seconds from 0 to 3600, not '\(text)'")
            }
            configuration.shutdownGracePeriod = .milliseconds(Int64(seconds * 1000))
        }
        return configuration
    }

    /// What to say at start about descriptors: that the open-file limit could not be raised (or
    /// only to a small hard limit), and whether the connection limit fits in it. A client
    /// connection usually holds an upstream one as well, so it counts twice.
    static func openFileNotices(command: String, maximumConnections: Int?) -> [String] {
        let openFiles = ResourceLimits.raiseOpenFileLimit()
        var notices: [String] = []
        let fits = maximumConnections.map {
            $0 <= ServerConfiguration.defaultMaximumConnections(openFiles: openFiles.soft)
        }
        if let failure = openFiles.failure {
            notices.append(
                "faultline \(command): cannot raise the open-file limit above \(openFiles.soft) (\(failure)); raise it with 'ulimit -n'"
            )
        } else if openFiles.soft < minimumComfortableOpenFiles {
            notices.append(
                "faultline \(command): the open-file limit is \(openFiles.soft) and cannot be raised (hard limit \(openFiles.hard)); raise it with 'ulimit -Hn' or the service's LimitNOFILE"
            )
        }
        if let maximumConnections {
            if fits == false {
                notices.append(
                    "faultline \(command): --max-connections \(maximumConnections) needs more descriptors than the \(openFiles.soft) allowed (two per proxied connection); when they run out accepting pauses (listener.paused in the trace)"
                )
            } else if !notices.isEmpty {
                notices.append("faultline \(command): at most \(maximumConnections) client connections at once")
            }
        }
        return notices
    }

    /// Below this many open files, `faultline run` says that the limit is low.
    static let minimumComfortableOpenFiles: UInt64 = 4096

    /// True when the command line asks for TLS itself (a CA, a TLS listener, an `https`
    /// upstream, TLS options), so a CA that cannot be loaded must stop the run.
    static func needsTLS(_ parsed: ParsedArguments, _ configuration: ServerConfiguration) -> Bool {
        let options = [
            "--confdir", "--ca-cert", "--ca-key", "--intercept", "--ignore", "--upstream-ca", "--insecure-upstream",
            "--tls-handshake-timeout",
        ]
        if options.contains(where: parsed.has) { return true }
        return configuration.listeners.contains { listener in
            if listener.tls { return true }
            if case .reverse(let upstream) = listener.mode { return upstream.scheme == "https" }
            return false
        }
    }

    /// Interception, TLS listeners and `https` upstreams: the CA (created on first use), how
    /// upstream certificates are checked, and which hosts are opened up.
    static func tlsConfiguration(
        _ parsed: ParsedArguments, listeners: [ListenerConfiguration]
    ) throws -> ServerTLSConfiguration {
        let authority = try CAOptions.authority(parsed, command: "run")
        if parsed.has("--intercept") || parsed.has("--ignore"),
            !listeners.contains(where: { $0.mode == .forward && !$0.tls })
        {
            throw UsageError(
                description: "faultline run: --intercept and --ignore choose which CONNECTs to open up, "
                    + "and only a plain forward listener receives CONNECT; add one (--listen ADDR)")
        }
        let interception = InterceptionPolicy(
            intercept: parsed.values("--intercept").map(HostGlob.init),
            ignore: parsed.values("--ignore").map(HostGlob.init))
        let insecure = parsed.has("--insecure-upstream")
        if insecure, parsed.has("--upstream-ca") {
            throw UsageError(
                description: "faultline run: --upstream-ca has no effect with --insecure-upstream; pick one")
        }
        let notices = NoticeBoard { printError($0) }
        do {
            var configuration = try ServerTLSConfiguration(
                authority: authority, upstreamTrustAnchorsFile: parsed.value("--upstream-ca"),
                verifyUpstream: !insecure,
                interception: interception, notices: notices, http2: !parsed.has("--http1-only"))
            if let seconds = try duration(parsed, "--tls-handshake-timeout") {
                configuration.handshakeTimeout = seconds
            }
            return configuration
        } catch let error as TLSError {
            // A trust-anchor file that cannot be read is a runtime failure (exit 1), like a CA file.
            throw CommandFailure(error.description)
        }
    }

    /// The control listener's address from `--control` (nil for `off`), with its companions checked.
    static func control(_ parsed: ParsedArguments) throws(UsageError) -> SocketAddress? {
        let text = parsed.value("--control") ?? "127.0.0.1:0"
        if text == "off" {
            if parsed.has("--control-token") || parsed.has("--control-file") {
                throw UsageError(
                    description:
                        "faultline run: --control-token and --control-file need the control API, not --control off")
            }
            return nil
        }
        if let token = parsed.value("--control-token") {
            // The token travels in a header field and a JSON file: visible ASCII only (RFC 9110 §5.5).
            guard !token.isEmpty, token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw UsageError(
                    description: "faultline run: --control-token takes visible ASCII characters without spaces")
            }
        }
        return try address(text, option: "--control")
    }

    /// Writes the control file so the other commands find this proxy; nil when it cannot be
    /// written (the proxy itself is still useful). What the user should know goes to `notices`.
    static func publish(
        _ control: ControlConfiguration, server: ProxyServer, path: String?, notices: inout [String]
    ) -> ControlFile? {
        guard let address = server.controlAddress else { return nil }
        let file = ControlFile(path: path ?? ControlFile.defaultPath())
        if let previous = try? file.read(), previous.pid != getpid(), ControlFile.isRunning(previous.pid) {
            notices.append(
                "faultline run: \(file.displayPath) named another running proxy (pid \(previous.pid)); "
                    + "the control commands now find this one (give each proxy its own --control-file)")
        }
        do {
            try file.write(ControlFile.Contents(url: "http://\(address)", token: control.token, pid: getpid()))
            return file
        } catch {
            notices.append("faultline run: \(error); the control commands will not find this proxy")
            return nil
        }
    }

    /// A `--listen` or `--control` value (see `listenAddress`).
    static func address(_ text: String, option: String = "--listen") throws(UsageError) -> SocketAddress {
        try listenAddress(text, option: option, command: "run", examplePort: 8080)
    }

    /// A timeout option of `faultline run` (see `ParsedArguments.seconds`).
    private static func duration(_ parsed: ParsedArguments, _ name: String) throws(UsageError) -> Duration? {
        try parsed.seconds(name, command: "run")
    }

    /// `faultline: rules from Rules: 9 scenarios, 6 on (a, b, …), 23 rules, auth profile
    /// Rules/auth-profile.json5; …`: what the proxy loaded, so a user knows which faults are armed.
    static func rulesLine(directory: String, _ ruleSet: RuleSet) -> String {
        let on = ruleSet.scenarios.filter(\.enabled).map(\.name)
        let rules = ruleSet.scenarios.reduce(0) { $0 + $1.rules.count }
        let profile = ruleSet.profile.map { "auth profile \($0.file)" } ?? "no auth profile"
        let named = on.isEmpty ? "" : " (" + on.joined(separator: ", ") + ")"
        return
            "faultline: rules from \(directory): \(ruleSet.scenarios.count) scenario\(ruleSet.scenarios.count == 1 ? "" : "s"), "
            + "\(on.count) on\(named), \(rules) rule\(rules == 1 ? "" : "s"), \(profile); 'faultline rules list' shows them"
    }

    static func banner(server: ProxyServer, output: TraceOutput, capture: CaptureOptions? = nil) -> String {
        let listeners = zip(server.configuration.listeners, server.boundAddresses).map { configuration, address in
            let listening = configuration.tls ? "\(address) (TLS)" : "\(address)"
            switch configuration.mode {
            case .forward: return "forward proxy on \(listening)"
            case .reverse(let upstream): return "reverse proxy on \(listening) to \(upstream)"
            }
        }
        let destination: String
        switch output {
        case .file(let path): destination = path
        case .standardOutput: destination = "stdout"
        case .memory: destination = "memory"
        }
        // The token is a secret: only the address goes here; the token is in the control file.
        // "control on" comes after the trace so that readers of the older banner
        // ("...; trace to X (Ctrl-C stops)") still find the listeners where they were.
        let control = server.controlAddress.map { "; control on \($0)" } ?? ""
        var banner =
            "faultline \(FaultlineVersion.string): \(listeners.joined(separator: ", ")); trace to \(destination)\(control) "
            + "(Ctrl-C stops)"
        if let capture {
            banner += "\nfaultline: capture: bodies up to \(capture.bodyLimit) bytes, "
            banner +=
                capture.secrets == .keep
                ? "WARNING: RAW SECRETS KEPT (--capture-secrets keep; the file is mode 0600, do not share it)"
                : "secrets as pseudonyms (flp.KIND.LINEAGE.N)"
        }
        if let tls = server.configuration.tls {
            banner +=
                "\nfaultline: TLS interception with the CA \(tls.authority.certificatePath ?? tls.authority.subjectDescription)"
            if !tls.clientContext.verify {
                banner += "\nfaultline: WARNING: --insecure-upstream: upstream certificates are NOT verified"
            }
        }
        return banner
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
