public import FaultlineFlow
public import FaultlineHTTP2

/// An upstream connection that speaks HTTP/2 (`h2` by ALPN, or h2c with prior knowledge): the
/// client-role HTTP/2 session over it.
///
/// The driver makes one when the TLS handshake picked `h2` and keeps it with the socket, in the
/// pool too, so the next flow on the connection continues the same session (HPACK tables,
/// stream IDs, windows, RFC 9113 §4.3 and §5.1.1). One flow's stream at a time: a flow takes
/// the connection from the pool as it would an HTTP/1.1 one and gives it back when its stream
/// has closed cleanly.
///
/// Confined to the event loop that owns the socket, as the socket is (hence `@unchecked`).
public final class HTTP2UpstreamConnection: UpstreamConnectionState, @unchecked Sendable {
    let session: HTTP2Connection
    /// `:scheme` of its requests: "https" over TLS, "http" for h2c.
    let scheme: String
    /// The upstream sent GOAWAY, or the session failed: the connection carries no new stream
    /// and is not pooled again (RFC 9113 §6.8).
    private(set) var closing = false

    /// Throws `session-unavailable` when nghttp2 cannot make a session.
    public init(scheme: String = "https") throws(HTTP2Error) {
        session = try HTTP2Connection(role: .client)
        self.scheme = scheme
    }

    /// Whether a new stream may start on it.
    var canCarryAnotherStream: Bool { !closing && session.canStartRequest }

    /// Notes what the connection-level events say about its future.
    func observe(_ event: HTTP2Event) {
        switch event {
        case .goAway, .connectionError: closing = true
        default: break
        }
    }
}
