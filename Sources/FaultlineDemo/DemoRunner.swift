import FaultlineBackend
public import FaultlineContract
import FaultlineExplore
public import FaultlineExplorer
import FaultlinePosix
public import FaultlineReplay
import FaultlineTestProxy
public import FaultlineTrace
public import Foundation

/// Runs demo cases: the reference backend and a proxy in this process, a reference client
/// through the proxy's reverse listener (over HTTP/1.1 or HTTP/2), and the contract checker on
/// the trace.
public final class DemoRunner: Sendable {
    /// One case's outcome.
    public struct Result: Sendable {
        public let demoCase: DemoCase
        public let report: ContractReport
        public let trace: Trace
        /// Where the trace was written, when a trace folder was given.
        public let tracePath: String?
        /// The clauses the checker named.
        public var violated: Set<ClauseID> { Set(report.violations.map(\.clause)) }
        /// True when the checker named exactly the expected clauses.
        public var asExpected: Bool { violated == demoCase.expected }
    }

    private let backend: ReferenceBackend
    private let traceDirectory: String?
    private let contract: Contract
    /// What the client speaks to the proxy.
    public let httpVersion: DemoHTTPVersion

    /// The demo's contract file: `Rules/contracts/session.contract.json5` without its comments,
    /// under that file's name, so a report of the demo names the same contract as
    /// `faultline check --contract Rules/contracts/session.contract.json5` on its kept trace.
    public static let contractFile = (name: "session.contract.json5", text: DemoRules.contract)

    /// Starts the reference backend; traces go to `traceDirectory` when given. The client speaks
    /// `httpVersion` to the proxy.
    public init(traceDirectory: String? = nil, httpVersion: DemoHTTPVersion = .http1_1) throws {
        backend = ReferenceBackend()
        try backend.start()
        self.traceDirectory = traceDirectory
        self.httpVersion = httpVersion
        let (loaded, errors) = ContractLoader.load(text: Self.contractFile.text, file: Self.contractFile.name)
        precondition(errors.isEmpty, "the built-in demo contract does not load: \(errors)")
        contract = loaded!
    }

    /// Runs one case on a fresh proxy (own rules, state and trace) against a reset backend; with
    /// `captureTo`, the proxy's trace is a capture and is saved there for `replay`.
    public func run(_ demoCase: DemoCase, captureTo: URL? = nil) async throws -> Result {
        backend.reset()
        guard let address = backend.address else { preconditionFailure("backend not running") }
        let proxy = try TestProxy.start(
            upstream: URL(string: "http://\(address)")!, rules: .files(Self.ruleFiles(demoCase)),
            capture: captureTo == nil ? nil : CaptureOptions())
        defer { proxy.stop() }
        let result = try await play(demoCase, proxy: proxy, backend: backend)
        if let captureTo { try proxy.saveCapture(to: captureTo) }
        return result
    }

    /// Runs one case against a replay of `capture` instead of the backend, with the case's rules
    /// on top: the recorded race, offline.
    public func replay(_ demoCase: DemoCase, capture: URL, settings: ReplaySettings = ReplaySettings()) async throws
        -> Result
    {
        let proxy = try TestProxy.start(replaying: capture, rules: .files(Self.ruleFiles(demoCase)), settings: settings)
        defer { proxy.stop() }
        return try await play(demoCase, proxy: proxy, backend: nil)
    }

    private static func ruleFiles(_ demoCase: DemoCase) -> [String: String] {
        var files = demoCase.scenario.ruleFiles
        files["auth-profile.json5"] = DemoRules.profile
        return files
    }

    /// Explores `demoCase` (`faultline demo --explore`): each schedule on a fresh proxy in
    /// exploration mode with the auth profile and only the rules that set the race up (a forced
    /// status, a replayed cookie; nothing that holds or orders), against a reset backend, the
    /// client playing the race's explored script. Judged against the demo's contract. A race whose
    /// client sends nothing on a timer is explored with no waiting (`sendsOnATimer`).
    public func explore(_ demoCase: DemoCase, options: ExploreOptions) async -> ExploreReport {
        var files = demoCase.scenario.exploreRuleFiles
        files["auth-profile.json5"] = DemoRules.profile
        let backend = self.backend
        let logoutAfter = DemoScenario.logoutAfter(settle: options.settings.settle)
        var options = options
        if !demoCase.scenario.sendsOnATimer { options.settings.maxWait = .zero }
        let explorer = Explorer.inProcess(
            options: options, contract: contract, upstream: URL(string: "http://\(backend.address!)")!,
            rules: .files(files), beforeEach: { backend.reset() }
        ) { [self] proxy in
            try await withClient(demoCase.flaws, proxy: proxy) { client in
                try await demoCase.scenario.playExplored(
                    client, proxy: proxy, backend: backend, logoutAfter: logoutAfter)
            }
        }
        return await explorer.explore()
    }

    /// A reference client with the runner's transport to `proxy`'s reverse listener, closed after `body`.
    private func withClient(
        _ flaws: ClientFlaws, proxy: TestProxy, _ body: (ReferenceClient) async throws -> Void
    ) async throws {
        let baseURL = proxy.baseURL!
        guard let host = baseURL.host, let port = baseURL.port,
            let address = try? SocketAddress(ipAddress: host, port: port)
        else { preconditionFailure("the proxy's reverse listener is an IP literal and port, not \(baseURL)") }
        let transport: any DemoTransport =
            switch httpVersion {
            case .http1_1: DemoHTTP1Transport(address: address)
            case .http2: try DemoHTTP2Transport(address: address)
            }
        do {
            try await body(ReferenceClient(baseURL: baseURL, flaws: flaws, transport: transport))
        } catch {
            await transport.close()
            throw error
        }
        await transport.close()
    }

    private func play(_ demoCase: DemoCase, proxy: TestProxy, backend: ReferenceBackend?) async throws -> Result {
        try await withClient(demoCase.flaws, proxy: proxy) { client in
            try await demoCase.scenario.play(client, proxy: proxy, backend: backend)
        }
        let trace = try proxy.trace()
        var tracePath: String? = nil
        if let traceDirectory {
            let path = "\(traceDirectory)/\(demoCase.scenario.rawValue)-\(demoCase.variant).jsonl"
            try proxy.traceText.write(toFile: path, atomically: true, encoding: .utf8)
            tracePath = path
        }
        return Result(
            demoCase: demoCase, report: ContractChecker.check(trace, contract: contract), trace: trace,
            tracePath: tracePath)
    }

    public func stop() { backend.stop() }
}
