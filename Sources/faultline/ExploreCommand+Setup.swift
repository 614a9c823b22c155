import FaultlineCapture
import FaultlineConfig
import FaultlineContract
import FaultlineCore
import FaultlineExplore
import FaultlineExplorer
import FaultlinePosix
import FaultlineReplay
import FaultlineRules
import FaultlineServer
import FaultlineTLS
import FaultlineTrace
import Foundation

extension ExploreCommand {
    /// Everything a run needs, read once from the command line: a proxy per schedule is built from it.
    struct Setup: Sendable {
        let options: ExploreOptions
        let contract: Contract
        let format: String
        let output: String?
        let client: [String]
        let beforeEach: String?
        let clientTimeout: Duration
        let base: ServerConfiguration
        let ruleSet: RuleSet?
        let redaction: RedactionPolicy
        let select: FlowMatch
        let stepTimeout: Duration
        let replay: (capture: Capture, settings: ReplaySettings)?
        /// The variables that point the client at the proxy's CA, when it intercepts TLS.
        let caVariables: [String: String]
        /// Folders made under the temp dir for this exploration: the CA bundle's, and the kept
        /// traces' when --keep does not name one (`removeTemporaryFolders`).
        let caFolder: String?
        let madeKeepFolder: Bool

        init(_ parsed: ParsedArguments, client: [String]) throws {
            self.client = client
            format = try formatOption(parsed)
            output = parsed.value("--output")
            beforeEach = parsed.value("--before-each")
            clientTimeout = try Self.seconds(parsed, "--client-timeout", default: 60)
            stepTimeout = try Self.seconds(parsed, "--step-timeout", default: 5)
            var options = ExploreOptions(command: client, arguments: Self.runArguments(parsed))
            options.schedules = try Self.count(parsed, "--schedules", default: 100, range: 1...1_000_000)
            options.seed = try Self.count(parsed, "--seed", default: 1, range: 0...Int.max).asSeed
            options.maxSteps = try Self.count(parsed, "--max-steps", default: 64, range: 1...10_000)
            options.shrinkRuns = try Self.count(parsed, "--shrink-runs", default: 40, range: 0...100_000)
            options.failOnClientError = parsed.has("--fail-on-client-error")
            options.settings.settle = .milliseconds(try Self.count(parsed, "--settle", default: 25, range: 1...60_000))
            options.settings.maxWait = .milliseconds(
                try Self.count(parsed, "--max-wait", default: 1000, range: 0...600_000))
            let depth = try Self.count(parsed, "--depth", default: 3, range: 1...64)
            switch parsed.value("--strategy") ?? "pct" {
            case "pct": options.strategy = .pct(depth: depth)
            case "random": options.strategy = .random
            case "exhaustive": options.strategy = .exhaustive
            case let other:
                throw UsageError(
                    description: "faultline explore: --strategy takes pct, random or exhaustive, not '\(other)'")
            }
            if let text = parsed.value("--schedule") {
                do {
                    options.replay = try Schedule(parsing: text)
                } catch {
                    throw UsageError(description: "faultline explore: --schedule: \(error)")
                }
                if !parsed.has("--schedules") { options.schedules = 1 }
            }
            if let text = parsed.value("--shard") {
                guard let shard = Shard(text) else {
                    throw UsageError(
                        description: "faultline explore: --shard takes K/N with 1 ≤ K ≤ N, such as 2/4, not '\(text)'")
                }
                guard options.strategy != .exhaustive || options.replay != nil else {
                    throw UsageError(
                        description:
                            "faultline explore: exhaustive search runs one order after another and cannot be sharded; use pct or random"
                    )
                }
                options.shard = shard
            }
            options.keepDirectory = parsed.value("--keep")

            if let path = parsed.value("--contract") {
                do { contract = try ContractLoader.load(file: path) } catch { throw CommandFailure(error.description) }
            } else {
                contract = .default
            }
            var arguments = parsed
            if !parsed.has("--listen") { arguments.prepend(("--listen", "127.0.0.1:0")) }
            var configuration = try RunCommand.serverConfiguration(arguments)
            configuration.shutdownGracePeriod = .zero
            // One loop unless told otherwise: the scheduler lets one step go at a time anyway, and
            // with several loops, requests a client sends one after another on new connections
            // are read in whichever order the loops' threads run, so the pending steps (and what
            // a replayed choice picks) would differ from run to run.
            if !parsed.has("--loops") { configuration.loopCount = 1 }
            if RunCommand.needsTLS(parsed, configuration) || parsed.has("--replay") {
                configuration.tls = try RunCommand.tlsConfiguration(parsed, listeners: configuration.listeners)
            } else {
                configuration.tls = try? RunCommand.tlsConfiguration(parsed, listeners: configuration.listeners)
            }
            base = configuration

            if let directory = parsed.value("--rules") {
                let report = RuleSetLoader.load(directory: directory)
                guard report.errors.isEmpty else {
                    throw CommandFailure(
                        report.errors.map(\.description).joined(separator: "\n")
                            + "\nthe rules in \(directory) have errors; fix them or run 'faultline rules check \(directory)'"
                    )
                }
                ruleSet = report.ruleSet
            } else {
                ruleSet = nil
            }
            redaction = RunCommand.redactionPolicy(parsed, profile: ruleSet?.profile)
            let profile = ruleSet?.profile
            select = try parsed.value("--select").map { try Self.match($0, profile: profile) } ?? FlowMatch()
            if let path = parsed.value("--replay") {
                let capture: Capture
                do { capture = try CaptureLoader.load(path: path) } catch { throw CommandFailure("--replay: \(error)") }
                replay = (capture, try ReplayServeCommand.replaySettings(parsed))
            } else {
                replay = nil
            }
            // Last, once the command line has been read whole: what this makes under the temp
            // dir is removed by `removeTemporaryFolders`, which a rejected command line never
            // reaches.
            if let authority = configuration.tls?.authority {
                (caFolder, caVariables) = try Self.caBundle(authority.certificatePEM)
            } else {
                (caFolder, caVariables) = (nil, [:])
            }
            madeKeepFolder = options.keepDirectory == nil
            if madeKeepFolder {
                do {
                    options.keepDirectory = try Self.temporaryFolder()
                } catch {
                    if let caFolder { try? FileManager.default.removeItem(atPath: caFolder) }
                    throw error
                }
            }
            self.options = options
        }

        /// Removes the CA bundle's folder, and the kept traces' folder this made when nothing was
        /// kept in it (a passing exploration leaves nothing behind; a failing one, the traces its
        /// report names).
        func removeTemporaryFolders() {
            let files = FileManager.default
            if let caFolder { try? files.removeItem(atPath: caFolder) }
            if madeKeepFolder, let folder = options.keepDirectory,
                (try? files.contentsOfDirectory(atPath: folder))?.isEmpty == true
            {
                try? files.removeItem(atPath: folder)
            }
        }

        /// One schedule: `--before-each`, a proxy in exploration mode with `strategy`, the client
        /// until it exits or its timeout, then the proxy stopped and what it recorded.
        func runOnce(_ strategy: any ExploreStrategy) throws -> ExploreRunOutput {
            let environment = ProcessInfo.processInfo.environment
            if let beforeEach {
                let outcome = try spawn(["/bin/sh", "-c", beforeEach], environment: environment)
                guard outcome.status == 0 else {
                    throw ExploreFailure(
                        "--before-each '\(beforeEach)' \(Self.describe(outcome))"
                            + (outcome.lastLine.map { ": \($0)" } ?? ""))
                }
            }
            var configuration = base
            configuration.explore = ExploreConfiguration(
                strategy: strategy, select: select, settings: options.settings, stepTimeout: stepTimeout)
            let trace = try TraceRecorder(output: .memory, redaction: redaction, flushInterval: .zero)
            if let replay {
                var settings = replay.settings
                settings.secrets = trace.redaction
                let source = ReplaySource(capture: replay.capture, settings: settings)
                configuration.replay = source
                source.follow(trace)
            }
            let server = ProxyServer(configuration: configuration, trace: trace, ruleSet: ruleSet)
            do {
                try server.start()
            } catch {
                throw ExploreFailure("cannot start the proxy: \(error)")
            }
            let proxy = "http://\(server.boundAddresses[0])"
            var variables = environment.merging(caVariables) { $1 }
            for name in [
                "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy", "FAULTLINE_PROXY",
            ] {
                variables[name] = proxy
            }
            variables["no_proxy"] = nil
            variables["NO_PROXY"] = nil
            let outcome: ChildProcess.Outcome
            do {
                outcome = try spawn(client, environment: variables, timeout: clientTimeout)
            } catch {
                server.stop()
                throw error
            }
            server.stop()
            guard let record = server.explored else {
                preconditionFailure("a proxy started in exploration mode has no exploration record")
            }
            var client = ClientOutcome(exitStatus: outcome.status, timedOut: outcome.timedOut)
            if outcome.timedOut || outcome.status != 0 {
                client.problem = Self.describe(outcome) + (outcome.lastLine.map { ": \($0)" } ?? "")
            }
            return ExploreRunOutput(record: record, traceText: trace.memoryContents(), client: client)
        }

        private func spawn(
            _ command: [String], environment: [String: String], timeout: Duration = .seconds(600)
        ) throws -> ChildProcess.Outcome {
            do {
                return try ChildProcess.run(command, environment: environment, timeout: timeout)
            } catch {
                throw ExploreFailure("cannot run \(command[0]): \(error)")
            }
        }

        static func describe(_ outcome: ChildProcess.Outcome) -> String {
            if outcome.timedOut { return "was killed at its timeout" }
            if let signal = outcome.signal { return "was killed by signal \(signal)" }
            return "exited \(outcome.status ?? -1)"
        }

        /// A CA bundle for the client: the system's trusted roots and the Faultline CA, in a file
        /// of its own; and the Faultline CA alone for Node, which adds it to its own roots. Returns
        /// the folder made for them and the variables naming them.
        static func caBundle(_ pem: String) throws -> (folder: String, variables: [String: String]) {
            let folder = try temporaryFolder(prefix: "faultline-explore-ca-")
            let system =
                ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"]
                .lazy.compactMap { FileManager.default.contents(atPath: $0) }.first ?? Data()
            let bundle = folder + "/ca-bundle.pem"
            let own = folder + "/faultline-ca.pem"
            do {
                try (system + Data(("\n" + pem).utf8)).write(to: URL(fileURLWithPath: bundle))
                try Data(pem.utf8).write(to: URL(fileURLWithPath: own))
            } catch {
                throw CommandFailure(
                    "cannot write the CA bundle for the client in \(folder): \(error.localizedDescription)")
            }
            return (
                folder,
                [
                    "SSL_CERT_FILE": bundle, "REQUESTS_CA_BUNDLE": bundle, "CURL_CA_BUNDLE": bundle,
                    "NODE_EXTRA_CA_CERTS": own,
                ]
            )
        }

        static func temporaryFolder(prefix: String = "faultline-explore-") throws -> String {
            var template = Array((NSTemporaryDirectory() + prefix + "XXXXXX").utf8CString)
            guard let made = mkdtemp(&template) else {
                throw CommandFailure(
                    "cannot create a folder under \(NSTemporaryDirectory()): \(String(cString: strerror(errno)))")
            }
            return String(cString: made)
        }

        /// `--select`: a rule file's `match`, in JSON5; errors point into the option's value.
        static func match(_ text: String, profile: AuthProfile?) throws -> FlowMatch {
            let prefix = "{ rules: [{ name: \"select\", actions: [{ delay: 0 }], match: "
            let (scenario, errors) = RuleSetLoader.loadScenario(
                text: prefix + text + " }] }", file: "--select", profile: profile)
            guard errors.isEmpty, let rule = scenario?.rules.first else {
                let messages = errors.map { error in
                    "--select: column \(max(error.location.column - prefix.count, 1)): \(error.message)"
                }
                throw UsageError(description: "faultline explore: " + messages.joined(separator: "\n"))
            }
            return rule.match
        }

        /// The options that choose schedules, say how many, or where the report goes: the rest
        /// shape each run, and the reproduce line repeats them.
        static let scheduleOptions: Set<String> = [
            "--schedules", "--strategy", "--depth", "--seed", "--schedule", "--shard", "--max-steps", "--shrink-runs",
            "--keep", "--format", "--output",
        ]

        /// The command line's options that shape each run, as typed (`--rules R --settle 10`).
        static func runArguments(_ parsed: ParsedArguments) -> [String] {
            parsed.options.filter { !scheduleOptions.contains($0.name) }.flatMap { option in
                [option.name] + (option.value.map { [$0] } ?? [])
            }
        }

        static func seconds(_ parsed: ParsedArguments, _ name: String, default value: Double) throws(UsageError)
            -> Duration
        {
            guard let text = parsed.value(name) else { return .milliseconds(Int64(value * 1000)) }
            guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else {
                throw UsageError(description: "faultline explore: \(name) takes a number of seconds, not '\(text)'")
            }
            return .milliseconds(Int64(seconds * 1000))
        }

        static func count(
            _ parsed: ParsedArguments, _ name: String, default value: Int, range: ClosedRange<Int>
        ) throws(UsageError) -> Int {
            try parsed.integer(name, default: value, in: range, command: "explore")
        }
    }
}

extension Int {
    fileprivate var asSeed: UInt64 { UInt64(self) }
}
