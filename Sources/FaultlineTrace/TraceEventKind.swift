/// The kind of a trace event: the `"event"` string of a trace line, such as `"request.received"`.
///
/// An open set: later modules add kinds (`rule.fired`, `hold.*`, `lineage.*`, `tls.*`) with
/// `static let` extensions or string literals, and a reader keeps kinds it does not know.
public struct TraceEventKind: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The dotted name written in the trace.
    public let rawValue: String

    /// Wraps a dotted event name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Wraps a dotted event name written as a literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The dotted name, as written in the trace.
    public var description: String { rawValue }

    /// A client or upstream connection was opened (accepted or connected).
    public static let connectionOpened: Self = "connection.opened"
    /// A connection was closed, by either side or by a fault.
    public static let connectionClosed: Self = "connection.closed"
    /// A request head (and body summary) was received from the client.
    public static let requestReceived: Self = "request.received"
    /// A request was sent on towards the upstream.
    public static let requestForwarded: Self = "request.forwarded"
    /// A response was received from the upstream.
    public static let responseReceived: Self = "response.received"
    /// A response (real or synthetic) was delivered to the client.
    public static let responseDelivered: Self = "response.delivered"
    /// A CONNECT tunnel was established.
    public static let tunnelOpened: Self = "tunnel.opened"
    /// A CONNECT tunnel ended.
    public static let tunnelClosed: Self = "tunnel.closed"
    /// A peer sent something the protocol does not allow.
    public static let protocolError: Self = "protocol.error"
    /// The upstream could not be reached or failed mid-exchange.
    public static let upstreamError: Self = "upstream.error"
    /// A listener started accepting connections.
    public static let listenerStarted: Self = "listener.started"
    /// A loop stopped accepting on a listener for a moment after `accept` failed for want of
    /// descriptors or memory (EMFILE, ENFILE, ENOMEM), instead of retrying at once.
    public static let listenerPaused: Self = "listener.paused"
    /// A client connection was accepted over the connection limit and turned away (a 503 on
    /// HTTP/1, a close otherwise) before anything of it reached the rules or an upstream.
    public static let connectionRejected: Self = "connection.rejected"
    /// A mark sent by a test (through the control API) to label a moment in the trace.
    public static let mark: Self = "mark"
    /// The proxy's TLS settings, once at start: the CA, upstream verification, host lists.
    public static let tlsConfigured: Self = "tls.configured"
    /// A TLS handshake completed, with the client (`side: client`) or an upstream.
    public static let tlsHandshake: Self = "tls.handshake"
    /// A TLS handshake or session failed; `side` says with which peer, `code` why.
    public static let tlsFailed: Self = "tls.failed"
    /// An HTTP/2 peer's SETTINGS (RFC 9113 §6.5): which side sent them, and the values.
    public static let http2Settings: Self = "http2.settings"
    /// A GOAWAY either way (RFC 9113 §6.8): which side sent it, its code and last stream.
    public static let http2GoAway: Self = "http2.goaway"
}
