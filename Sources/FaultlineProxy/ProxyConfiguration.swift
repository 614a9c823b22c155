import FaultlineFlow
public import FaultlineHTTP1
public import FaultlineRules

/// How one listener's proxy sessions behave.
///
/// A value type whose settings sit in one shared, immutable box: every session of a listener
/// (and its connection's driver) holds the same configuration, so each holds a reference
/// instead of a copy of a few hundred bytes (memory per idle connection; Benchmarks/idle).
/// Setting a property makes a new box; sessions never set one.
public struct ProxyConfiguration: Sendable {
    private struct Settings: Sendable {
        var mode: ProxyMode
        var limits: HTTP1Limits
        var responseTimeout: Duration
        var clientIdleTimeout: Duration
        var headerTimeout: Duration
        var bodyTimeout: Duration
        var via: ViaField?
        var maximumPendingUpstreamBytes: Int
        var rules: (any FlowRules)?
        var interception: InterceptionPolicy?
        var clientHelloTimeout: Duration
        var silentClientTunnelDelay: Duration
        var keepsClientHost: Bool
    }

    private final class Shared: Sendable {
        let settings: Settings
        init(_ settings: Settings) { self.settings = settings }
    }

    private var shared: Shared

    private mutating func update(_ change: (inout Settings) -> Void) {
        var settings = shared.settings
        change(&settings)
        shared = Shared(settings)
    }

    /// Forward or reverse.
    public var mode: ProxyMode {
        get { shared.settings.mode }
        set { update { $0.mode = newValue } }
    }
    /// Parser limits for client requests and upstream responses.
    public var limits: HTTP1Limits {
        get { shared.settings.limits }
        set { update { $0.limits = newValue } }
    }
    /// How long to wait for an upstream response head after the request head was sent; 504 after.
    public var responseTimeout: Duration {
        get { shared.settings.responseTimeout }
        set { update { $0.responseTimeout = newValue } }
    }
    /// How long a kept-alive client connection may sit between requests before it is closed.
    public var clientIdleTimeout: Duration {
        get { shared.settings.clientIdleTimeout }
        set { update { $0.clientIdleTimeout = newValue } }
    }
    /// How long a client may take from the first byte of a request head to its end; 408 after
    /// (haproxy's `timeout http-request`): a slowloris client cannot hold a connection for the
    /// whole idle timeout by sending a byte now and then. On HTTP/2, the time a HEADERS without
    /// END_HEADERS has for its CONTINUATION frames to end the block; GOAWAY PROTOCOL_ERROR after.
    public var headerTimeout: Duration {
        get { shared.settings.headerTimeout }
        set { update { $0.headerTimeout = newValue } }
    }
    /// How long a request body may go without a byte arriving while the proxy is reading it; 408
    /// after (or, once the response has begun, the connection closes), as nginx's
    /// `client_body_timeout`: an upload that stops mid-body cannot hold its connection and its
    /// upstream for the idle timeout. Not counted while the proxy itself has stopped reading
    /// (backpressure). HTTP/1 only.
    public var bodyTimeout: Duration {
        get { shared.settings.bodyTimeout }
        set { update { $0.bodyTimeout = newValue } }
    }
    /// The pseudonym sent in `Via` (RFC 9110 §7.6.3); a request that already carries it is a loop (508).
    public var viaPseudonym: String? {
        get { shared.settings.via?.pseudonym }
        set { update { $0.via = newValue.map(ViaField.init(pseudonym:)) } }
    }
    /// `viaPseudonym` as the field value it makes; nil when no `Via` is added.
    public var via: ViaField? { shared.settings.via }
    /// Request bytes buffered while the upstream connection is being set up before client reads pause.
    public var maximumPendingUpstreamBytes: Int {
        get { shared.settings.maximumPendingUpstreamBytes }
        set { update { $0.maximumPendingUpstreamBytes = newValue } }
    }
    /// What the rules and the auth profile need of a flow (the driver answers their questions);
    /// nil forwards every flow unchanged (and costs nothing).
    public var rules: (any FlowRules)? {
        get { shared.settings.rules }
        set { update { $0.rules = newValue } }
    }
    /// Which `CONNECT` targets have their TLS terminated and their HTTP run through the proxy;
    /// nil tunnels every `CONNECT` unchanged (the driver has no TLS set up).
    public var interception: InterceptionPolicy? {
        get { shared.settings.interception }
        set { update { $0.interception = newValue } }
    }
    /// How long a client may take to send its ClientHello after an early-answered `CONNECT`.
    public var clientHelloTimeout: Duration {
        get { shared.settings.clientHelloTimeout }
        set { update { $0.clientHelloTimeout = newValue } }
    }
    /// How long a client may stay silent after an early-answered `CONNECT` before the proxy
    /// decides it waits for the server to speak first (SSH, SMTP) and tunnels it.
    public var silentClientTunnelDelay: Duration {
        get { shared.settings.silentClientTunnelDelay }
        set { update { $0.silentClientTunnelDelay = newValue } }
    }
    /// Forward the client's own `Host` field instead of the upstream's authority: the HTTP inside
    /// an intercepted tunnel is already addressed to the right origin.
    public var keepsClientHost: Bool {
        get { shared.settings.keepsClientHost }
        set { update { $0.keepsClientHost = newValue } }
    }

    public init(
        mode: ProxyMode,
        limits: HTTP1Limits = .default,
        responseTimeout: Duration = .seconds(60),
        clientIdleTimeout: Duration = .seconds(120),
        headerTimeout: Duration = .seconds(10),
        bodyTimeout: Duration = .seconds(60),
        viaPseudonym: String? = "faultline",
        maximumPendingUpstreamBytes: Int = 256 * 1024,
        rules: (any FlowRules)? = nil,
        interception: InterceptionPolicy? = nil,
        clientHelloTimeout: Duration = .seconds(10),
        silentClientTunnelDelay: Duration = .seconds(1),
        keepsClientHost: Bool = false
    ) {
        shared = Shared(
            Settings(
                mode: mode,
                limits: limits,
                responseTimeout: responseTimeout,
                clientIdleTimeout: clientIdleTimeout,
                headerTimeout: headerTimeout,
                bodyTimeout: bodyTimeout,
                via: viaPseudonym.map(ViaField.init(pseudonym:)),
                maximumPendingUpstreamBytes: maximumPendingUpstreamBytes,
                rules: rules,
                interception: interception,
                clientHelloTimeout: clientHelloTimeout,
                silentClientTunnelDelay: silentClientTunnelDelay,
                keepsClientHost: keepsClientHost))
    }
}
