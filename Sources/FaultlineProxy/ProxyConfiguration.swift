import FaultlineFlow
public import FaultlineHTTP1
public import FaultlineRules

/// How one listener's proxy sessions behave.
public struct ProxyConfiguration: Sendable {
    /// Forward or reverse.
    public var mode: ProxyMode
    /// Parser limits for client requests and upstream responses.
    public var limits: HTTP1Limits
    /// How long to wait for an upstream response head after the request head was sent; 504 after.
    public var responseTimeout: Duration
    /// How long a kept-alive client connection may sit between requests before it is closed.
    public var clientIdleTimeout: Duration
    /// How long a client may take from the first byte of a request head to its end; 408 after
    /// (haproxy's `timeout http-request`): a slowloris client cannot hold a connection for the
    /// whole idle timeout by sending a byte now and then. On HTTP/2, the time a HEADERS without
    /// END_HEADERS has for its CONTINUATION frames to end the block; GOAWAY PROTOCOL_ERROR after.
    public var headerTimeout: Duration
    /// The pseudonym sent in `Via` (RFC 9110 §7.6.3); a request that already carries it is a loop (508).
    public var viaPseudonym: String?
    /// Request bytes buffered while the upstream connection is being set up before client reads pause.
    public var maximumPendingUpstreamBytes: Int
    /// What the rules and the auth profile need of a flow (the driver answers their questions);
    /// nil forwards every flow unchanged (and costs nothing).
    public var rules: (any FlowRules)?
    /// Which `CONNECT` targets have their TLS terminated and their HTTP run through the proxy;
    /// nil tunnels every `CONNECT` unchanged (the driver has no TLS set up).
    public var interception: InterceptionPolicy?
    /// How long a client may take to send its ClientHello after an early-answered `CONNECT`.
    public var clientHelloTimeout: Duration
    /// How long a client may stay silent after an early-answered `CONNECT` before the proxy
    /// decides it waits for the server to speak first (SSH, SMTP) and tunnels it.
    public var silentClientTunnelDelay: Duration
    /// Forward the client's own `Host` field instead of the upstream's authority: the HTTP inside
    /// an intercepted tunnel is already addressed to the right origin.
    public var keepsClientHost: Bool

    public init(
        mode: ProxyMode,
        limits: HTTP1Limits = .default,
        responseTimeout: Duration = .seconds(60),
        clientIdleTimeout: Duration = .seconds(120),
        headerTimeout: Duration = .seconds(10),
        viaPseudonym: String? = "faultline",
        maximumPendingUpstreamBytes: Int = 256 * 1024,
        rules: (any FlowRules)? = nil,
        interception: InterceptionPolicy? = nil,
        clientHelloTimeout: Duration = .seconds(10),
        silentClientTunnelDelay: Duration = .seconds(1),
        keepsClientHost: Bool = false
    ) {
        self.mode = mode
        self.limits = limits
        self.responseTimeout = responseTimeout
        self.clientIdleTimeout = clientIdleTimeout
        self.headerTimeout = headerTimeout
        self.viaPseudonym = viaPseudonym
        self.maximumPendingUpstreamBytes = maximumPendingUpstreamBytes
        self.rules = rules
        self.interception = interception
        self.clientHelloTimeout = clientHelloTimeout
        self.silentClientTunnelDelay = silentClientTunnelDelay
        self.keepsClientHost = keepsClientHost
    }
}
