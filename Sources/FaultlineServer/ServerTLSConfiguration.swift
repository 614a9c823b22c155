import FaultlineFlow
public import FaultlineProxy
public import FaultlineTLS

/// How a proxy server speaks TLS: the CA that signs what it presents to clients, how it checks
/// upstream servers, and which `CONNECT` targets it opens up.
public struct ServerTLSConfiguration: Sendable {
    /// Signs the certificates presented to intercepted clients and on TLS listeners.
    public let authority: CertificateAuthority
    /// The client-facing side: minted certificates by SNI, ALPN `http/1.1` (HTTP/2 slots in here).
    public let serverContext: TLSServerContext
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
        notices: NoticeBoard = NoticeBoard { _ in }
    ) throws(TLSError) {
        self.authority = authority
        self.serverContext = try TLSServerContext(authority: authority, alpn: ["http/1.1"])
        self.clientContext = try TLSClientContext(verify: verifyUpstream, extraTrustAnchorsPEMFile: upstreamTrustAnchorsFile)
        self.interception = interception
        self.handshakeTimeout = handshakeTimeout
        self.notices = notices
    }

    /// What the client side offers and the upstream side asks for: HTTP/1.1 only, for now.
    static let applicationProtocols = ["http/1.1"]
}
