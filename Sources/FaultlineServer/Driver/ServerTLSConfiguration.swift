import FaultlineFlow
import FaultlineHTTP2
public import FaultlineProxy
public import FaultlineTLS

/// How a proxy server speaks TLS: the CA that signs what it presents to clients, how it checks
/// upstream servers, and which `CONNECT` targets it opens up.
public struct ServerTLSConfiguration: Sendable {
    /// Signs the certificates presented to intercepted clients and on TLS listeners.
    public let authority: CertificateAuthority
    /// The client-facing side: minted certificates by SNI, ALPN `h2` (unless `http2` is off) and
    /// `http/1.1`, in that order of preference.
    public let serverContext: TLSServerContext
    /// Clients that offer `h2` in ALPN get HTTP/2 (RFC 9113 §3.2).
    public let http2: Bool
    /// The upstream-facing side: verification against the system store plus any extra anchors.
    public let clientContext: TLSClientContext
    /// Which `CONNECT` targets have their TLS terminated.
    public var interception: InterceptionPolicy
    /// How long a TLS handshake may take, on either side, before the connection is dropped.
    public var handshakeTimeout: Duration
    /// Where sentences for the person running the proxy go (the console), e.g. that a client does
    /// not trust the CA. Each distinct sentence is passed once.
    public let notices: NoticeBoard

    /// Sets up both TLS contexts. Throws `trust-anchors-unreadable` when `upstreamTrustAnchorsFile`
    /// cannot be loaded, `openssl-failure` if OpenSSL cannot make a context.
    public init(
        authority: CertificateAuthority, upstreamTrustAnchorsFile: String? = nil, verifyUpstream: Bool = true,
        interception: InterceptionPolicy = InterceptionPolicy(), handshakeTimeout: Duration = .seconds(10),
        notices: NoticeBoard = NoticeBoard { _ in }, http2: Bool = true
    ) throws(TLSError) {
        self.authority = authority
        self.http2 = http2
        self.serverContext = try TLSServerContext(
            authority: authority, alpn: http2 ? ["h2", "http/1.1"] : ["http/1.1"])
        self.clientContext = try TLSClientContext(
            verify: verifyUpstream, extraTrustAnchorsPEMFile: upstreamTrustAnchorsFile)
        self.interception = interception
        self.handshakeTimeout = handshakeTimeout
        self.notices = notices
    }

    /// What an `https` upstream is offered by ALPN (RFC 7301): `h2` first, so an origin that
    /// speaks HTTP/2 gets it (a stream per flow, `HTTP2UpstreamCodec`), else HTTP/1.1; only
    /// HTTP/1.1 with `--http1-only`.
    var upstreamApplicationProtocols: [String] { http2 ? Self.http2AndHTTP1 : Self.http1 }

    // One array each, shared by every connection (a new one per connection was 64 bytes of each
    // idle connection).
    private static let http2AndHTTP1 = [HTTP2Connection.alpn, "http/1.1"]
    private static let http1 = ["http/1.1"]

    /// The offer for a request that must go over HTTP/1.1 (a WebSocket upgrade).
    static let http1ApplicationProtocols = ["http/1.1"]
}
