import FaultlineFlow
public import FaultlineHTTP2
public import FaultlinePosix
public import FaultlineProxy

/// One address to listen on and what to do with the requests that arrive there.
public struct ListenerConfiguration: Sendable {
    public var address: SocketAddress
    public var mode: ProxyMode
    /// Clients speak TLS to this listener: it presents a certificate minted by the server's CA
    /// for the SNI name (or for the listening address). Needs `ServerConfiguration.tls`.
    public var tls: Bool

    public init(address: SocketAddress, mode: ProxyMode, tls: Bool = false) {
        self.address = address
        self.mode = mode
        self.tls = tls
    }
}

/// Everything a `ProxyServer` needs besides its trace.
public struct ServerConfiguration: Sendable {
    public var listeners: [ListenerConfiguration]
    /// Event-loop threads; nil means one per online CPU.
    public var loopCount: Int?
    /// Session settings shared by every listener (each listener's mode replaces `proxy.mode`).
    public var proxy: ProxyConfiguration
    /// How long a TCP connect to an upstream may take before the client gets 504.
    public var connectTimeout: Duration
    /// How long an idle upstream connection stays in the keep-alive pool.
    public var upstreamIdleTimeout: Duration
    /// Idle connections kept per upstream endpoint and event loop. Each HTTP/2 client stream
    /// in flight holds an upstream connection of its own, so one client can have hundreds busy
    /// at once (h2load -m50 over 10 connections: 500); with too small a pool a quarter of them
    /// were closed on release and opened again for the next stream.
    public var maximumIdlePerEndpoint: Int
    /// Outbound bytes queued on one side before the proxy stops reading the other side.
    public var backpressureHighWatermark: Int
    /// How long output may wait for a client that reads none of it before its connection is
    /// closed (`--send-timeout`, as nginx's `send_timeout`): the time between two writes that
    /// move some of it into the kernel (ClientConnectionHandler+SendTimeout.swift).
    public var sendTimeout: Duration = .seconds(60)
    /// TLS interception, TLS listeners and `https` upstreams; nil: every `CONNECT` is tunnelled
    /// and an `https` upstream cannot be reached.
    public var tls: ServerTLSConfiguration?
    /// Answer every flow's upstream from a recording (`faultline replay serve`); nil: the network.
    public var replay: (any ReplayResponder)?
    /// Exploration mode: the selected flows are scheduled one step at a time (`faultline explore`).
    public var explore: ExploreConfiguration?
    /// A plain listener serves HTTP/2 to a client that opens with its preface (h2c with prior
    /// knowledge, RFC 9113 §3.3); false: such a client gets HTTP/1.1's answer (`--http1-only`).
    /// On TLS, ALPN decides (`ServerTLSConfiguration.http2`).
    public var http2PriorKnowledge = true
    /// What one HTTP/2 client connection may ask of the proxy (streams, header sizes, windows).
    public var http2Limits = HTTP2Connection.Limits()
    /// Plain `http://` upstreams get HTTP/2 with prior knowledge (h2c, RFC 9113 §3.3) instead of
    /// HTTP/1.1: for gRPC and other h2c-only backends (`--upstream-h2c`). WebSocket upgrades
    /// still go over HTTP/1.1.
    public var upstreamHTTP2PriorKnowledge = false
    /// How long `ProxyServer.stop` lets HTTP/2 client connections drain: each gets GOAWAY
    /// (RFC 9113 §6.8) and its open streams may finish meanwhile; what is still open at the end
    /// is closed. Zero (the default, and what `TestProxy` uses): every connection is closed at
    /// once. `faultline run` drains for 5 seconds (`--shutdown-grace`).
    public var shutdownGracePeriod: Duration = .zero
    /// Most client connections held at once, over every listener (`--max-connections`, like
    /// haproxy's `maxconn`); nil (the default, and what `TestProxy` uses): no limit. A connection
    /// past it is accepted and turned away before it reaches the rules or an upstream: an
    /// HTTP/1 client on a plain listener gets 503 with `Connection: close`, any other (h2c, a
    /// TLS listener) is closed; `connection.rejected` says which.
    public var maximumConnections: Int?
    /// New upstream connections opened at once per origin and per event loop, and how many more
    /// may wait (`--max-upstream-connects`, `--upstream-connect-queue`); see
    /// `UpstreamConnectLimits` for the defaults.
    public var upstreamConnects = UpstreamConnectLimits()

    /// `faultline run`'s default ``maximumConnections`` for a process that may hold `openFiles`
    /// descriptors: half of them after a reserve, since a client connection usually holds an
    /// upstream one as well.
    public static func defaultMaximumConnections(openFiles: UInt64) -> Int {
        ConnectionBudget.defaultLimit(openFiles: openFiles)
    }

    public init(
        listeners: [ListenerConfiguration],
        loopCount: Int? = nil,
        proxy: ProxyConfiguration = ProxyConfiguration(mode: .forward),
        connectTimeout: Duration = .seconds(10),
        upstreamIdleTimeout: Duration = .seconds(30),
        maximumIdlePerEndpoint: Int = 256,
        backpressureHighWatermark: Int = 256 * 1024,
        tls: ServerTLSConfiguration? = nil,
        replay: (any ReplayResponder)? = nil
    ) {
        self.listeners = listeners
        self.loopCount = loopCount
        self.proxy = proxy
        self.connectTimeout = connectTimeout
        self.upstreamIdleTimeout = upstreamIdleTimeout
        self.maximumIdlePerEndpoint = maximumIdlePerEndpoint
        self.backpressureHighWatermark = backpressureHighWatermark
        self.tls = tls
        self.replay = replay
    }
}
