/// How the body of the message being decoded is delimited (RFC 9112 §6).
public enum BodyFraming: Sendable, Equatable {
    /// No body: the message ends with its head.
    case none
    /// Exactly this many bytes follow the head (RFC 9112 §6.2).
    case contentLength(Int64)
    /// The chunked transfer coding delimits the body (RFC 9112 §7.1).
    case chunked
    /// The body runs until the connection closes (responses only, RFC 9112 §6.3 item 8).
    case closeDelimited
    /// The message switched the connection to a tunnel (CONNECT, 101): what follows is not HTTP/1.1.
    case tunnel
}
