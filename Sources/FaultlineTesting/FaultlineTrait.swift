public import FaultlineContract
public import FaultlineTestProxy
public import Testing

/// The `.faultline(...)` trait: a proxy (and, by default, the reference backend) for each test,
/// exposed as `Faultline.current`, the contract checked when the test body returns, everything
/// stopped when the test ends, whether it passed, threw or was cancelled.
///
/// On a suite it applies to every test in it, each with a proxy of its own: the scope is made
/// per test (and per argument of a parameterized test), never once for the suite, so the
/// suite's tests still run in parallel without sharing a port, a rule's state or a trace.
///
/// When the contract check fails, or the body throws, the test gets the trace, the HTML report
/// (on a contract failure) and a HAR of its traffic as attachments named after it, which
/// `swift test --attachments-path DIR` saves.
public struct FaultlineTrait: TestTrait, SuiteTrait, TestScoping {
    /// What each test runs with.
    public var configuration: Faultline.Configuration

    /// A trait running `configuration`; `.faultline(...)` reads better.
    public init(configuration: Faultline.Configuration) {
        self.configuration = configuration
    }

    /// Applied to every test of a suite it is on.
    public var isRecursive: Bool { true }

    /// A scope per test case: none for a suite itself, nor for a parameterized test function as
    /// a whole (each of its cases gets one).
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> FaultlineTrait? {
        testCase == nil ? nil : self
    }

    /// Starts the test's proxy, runs the test with it as `Faultline.current`, checks the
    /// contract (unless turned off) and stops everything; see ``FaultlineTrait``.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await Faultline.withScope(configuration, label: test.name) { _ in try await function() }
    }
}

extension Trait where Self == FaultlineTrait {
    /// A proxy for each test, in front of `backend`, running `rules` (a folder of rule files,
    /// as `faultline run --rules` reads it); the contract is checked when the body returns.
    ///
    /// ```swift
    /// @Test(.faultline(rules: "Rules", backend: .reference, contract: .default))
    /// func logoutWinsOverALateRefresh() async throws { ... Faultline.current ... }
    /// ```
    public static func faultline(
        rules: String? = nil, backend: Faultline.Upstream = .reference, contract: Contract = .default,
        tls: TestProxy.TLS? = nil, acceptingUnchecked: Set<ClauseID> = [], checksContract: Bool = true
    ) -> FaultlineTrait {
        faultline(
            ruleSet: rules.map { .directory($0) }, backend: backend, contract: contract, tls: tls,
            acceptingUnchecked: acceptingUnchecked, checksContract: checksContract)
    }

    /// The same with rules given as text (`.files([...])`) or built in code (`.ruleSet(...)`).
    public static func faultline(
        ruleSet: TestProxy.Rules?, backend: Faultline.Upstream = .reference, contract: Contract = .default,
        tls: TestProxy.TLS? = nil, acceptingUnchecked: Set<ClauseID> = [], checksContract: Bool = true
    ) -> FaultlineTrait {
        FaultlineTrait(
            configuration: Faultline.Configuration(
                rules: ruleSet, upstream: backend, contract: contract, tls: tls, acceptingUnchecked: acceptingUnchecked,
                checksContract: checksContract))
    }
}
