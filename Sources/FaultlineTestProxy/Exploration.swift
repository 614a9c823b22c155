import FaultlineBackend
public import FaultlineContract
public import FaultlineExplore
public import FaultlineExplorer
public import FaultlineRules
public import Foundation

/// Exploration in a test: the test's client code runs once per schedule against an in-process
/// `TestProxy` in exploration mode, each run's trace judged against the contract, failing
/// schedules shrunk. The result feeds `expectNoContractViolations()` (Swift Testing) or
/// `assertNoContractViolations()` (XCTest).
///
/// ```swift
/// let result = await Exploration.run(schedules: 50, rules: .directory("Rules")) { proxy in
///     let client = MyAPIClient(baseURL: proxy.baseURL!)   // the proxy stands for the backend
///     try await client.signInAndLoadThreeScreens()
/// }
/// result.expectNoContractViolations()
/// ```
public enum Exploration {
    /// What the proxy forwards to.
    public enum Upstream: Sendable {
        /// A fresh `ReferenceBackend` for each schedule, started and stopped around it.
        case referenceBackend
        /// A server of the test's own; `beforeEach` resets it.
        case url(URL)
    }

    /// Explores `client` over `schedules` schedules of `strategy` (seeded; schedule i's seed comes
    /// from `seed` and i), checking each run against `contract`. Failing runs' traces and HTML
    /// reports are kept in `$FAULTLINE_ARTIFACTS`, else `faultline-traces` in the temporary
    /// directory. A client that throws is a client failure of that run (the verdict's only with
    /// `failOnClientError`).
    public static func run(
        schedules: Int = 50, strategy: StrategyKind = .pct(depth: 3), seed: UInt64 = 1, contract: Contract = .default,
        rules: TestProxy.Rules? = nil, upstream: Upstream = .referenceBackend, select: FlowMatch = FlowMatch(),
        settings: ExploreScheduler.Settings = ExploreScheduler.Settings(), stepTimeout: Duration = .seconds(5),
        shrinkRuns: Int = 40, failOnClientError: Bool = false,
        beforeEach: @escaping @Sendable () async throws -> Void = {},
        client: @escaping @Sendable (TestProxy) async throws -> Void
    ) async -> ExplorationResult {
        let environment = ProcessInfo.processInfo.environment
        let folder =
            environment[ContractExpectation.artifactsVariable].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("faultline-traces").path
        let kept = folder + "/explore-" + UUID().uuidString.prefix(8).lowercased()
        let options = ExploreOptions(
            strategy: strategy, seed: seed, schedules: schedules, shrinkRuns: shrinkRuns,
            failOnClientError: failOnClientError, keepDirectory: kept, settings: settings)
        let backend: ReferenceBackend?
        let target: URL
        switch upstream {
        case .url(let url):
            backend = nil
            target = url
        case .referenceBackend:
            let started = ReferenceBackend()
            do {
                try started.start()
            } catch {
                var report = ExploreReport(
                    strategy: strategy.description, seed: seed, schedules: schedules, shard: nil, settleMilliseconds: 0,
                    maxWaitMilliseconds: 0, contract: ContractSummary(contract), command: [],
                    failOnClientError: failOnClientError)
                report.problem = "cannot start the reference backend: \(error)"
                return ExplorationResult(report: report)
            }
            backend = started
            target = started.baseURL!
        }
        defer { backend?.stop() }
        let explorer = Explorer.inProcess(
            options: options, contract: contract, upstream: target, rules: rules, select: select,
            stepTimeout: stepTimeout,
            beforeEach: {
                backend?.reset()
                try await beforeEach()
            }, client: client)
        return ExplorationResult(report: await explorer.explore())
    }
}

/// The outcome of `Exploration.run`: the report, and the failure message a test records.
public struct ExplorationResult: Sendable {
    public let report: ExploreReport

    public init(report: ExploreReport) { self.report = report }

    /// Nil when no schedule broke the contract; otherwise the text report (each clause's first and
    /// shrunk schedule, and the kept trace and HTML report paths).
    public var failureMessage: String? {
        report.passed ? nil : ExploreReportFormatter.text(report)
    }
}
