public import FaultlineBackend
public import FaultlineContract
public import FaultlineReplay
public import FaultlineTestProxy
public import Foundation

/// What a test running under the `.faultline(...)` trait (or inside ``withScope(_:label:check:_:)``)
/// works with: its own proxy, and the reference backend behind it when the trait started one.
///
/// ```swift
/// @Test(.faultline(rules: "Rules", backend: .reference))
/// func logoutWinsOverALateRefresh() async throws {
///     let faultline = try #require(Faultline.current)
///     let app = MyApp(baseURL: faultline.baseURL)
///     ...
/// }   // the contract is checked here, then the proxy and the backend stop
/// ```
///
/// Every test gets a value of its own (also every test of a suite the trait is on), so tests
/// running in parallel never share a port, a rule's state or a trace.
public struct Faultline: Sendable {
    /// The scope of the test running now; nil outside a `.faultline(...)` test.
    @TaskLocal public static var current: Faultline?

    /// The test's proxy: holds, marks, the trace, pipeline steps (`proxy.step(...)`).
    public let proxy: TestProxy
    /// The reference backend started for the test (``Upstream/reference``), else nil.
    public let backend: ReferenceBackend?
    /// What the test runs with.
    public let configuration: Configuration

    /// Where the client under test sends its requests: the proxy's reverse listener (the
    /// upstream's stand-in), or its forward listener when the scope has no upstream.
    public var baseURL: URL { proxy.baseURL ?? proxy.proxyURL }

    /// What the proxy forwards to.
    public enum Upstream: Sendable {
        /// A `ReferenceBackend` started in process for the test, on an ephemeral port.
        case reference
        /// A server of your own (`http://`, or `https://` with ``Configuration/tls``).
        case url(URL)
        /// A capture, trace or HAR file answered by the proxy itself (`TestProxy.start(replaying:)`).
        case replay(URL, origin: URL? = nil, settings: ReplaySettings = ReplaySettings())
        /// No reverse listener: the client uses the forward listener (`proxy.environment`).
        case none
    }

    /// The trait's options, also what ``withScope(_:label:check:_:)`` takes.
    public struct Configuration: Sendable {
        /// The rules the proxy runs; nil for none.
        public var rules: TestProxy.Rules?
        /// What the proxy forwards to.
        public var upstream: Upstream
        /// The contract checked when the test body returns.
        public var contract: Contract
        /// TLS for the proxy (interception, `https` upstreams); nil for plain HTTP.
        public var tls: TestProxy.TLS?
        /// Clauses the test accepts as not checked (see `expectContractHolds`).
        public var acceptingUnchecked: Set<ClauseID>
        /// False leaves the contract to the test (`Faultline.current?.proxy.expectContractHolds()`).
        public var checksContract: Bool

        /// Makes a configuration; the defaults are the reference backend, no rules, the default
        /// contract checked automatically, no TLS.
        public init(
            rules: TestProxy.Rules? = nil, upstream: Upstream = .reference, contract: Contract = .default,
            tls: TestProxy.TLS? = nil, acceptingUnchecked: Set<ClauseID> = [], checksContract: Bool = true
        ) {
            self.rules = rules
            self.upstream = upstream
            self.contract = contract
            self.tls = tls
            self.acceptingUnchecked = acceptingUnchecked
            self.checksContract = checksContract
        }
    }
}
