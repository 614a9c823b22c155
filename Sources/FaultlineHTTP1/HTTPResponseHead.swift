/// The head of a response: status-line and header section (RFC 9112 §4).
public struct HTTPResponseHead: Sendable, Equatable {
    public var version: HTTPVersion
    /// The three-digit status code (100...999; RFC 9110 §15).
    public var status: Int
    /// The reason-phrase, possibly empty (RFC 9112 §4: clients should ignore it).
    public var reason: String
    public var headers: HTTPHeaders

    /// A response head; the encoder writes these values as given.
    public init(version: HTTPVersion = .http1_1, status: Int, reason: String = "", headers: HTTPHeaders = HTTPHeaders())
    {
        self.version = version
        self.status = status
        self.reason = reason
        self.headers = headers
    }
}
