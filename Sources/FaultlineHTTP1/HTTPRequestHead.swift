/// The head of a request: request-line and header section (RFC 9112 §3).
public struct HTTPRequestHead: Sendable, Equatable {
    /// The method token, case-sensitive (RFC 9110 §9.1), e.g. `"GET"`.
    public var method: String
    /// The request-target exactly as received; ``RequestTarget/parse(_:method:)`` splits it.
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders

    /// A request head; the encoder writes these values as given.
    public init(method: String, target: String, version: HTTPVersion = .http1_1, headers: HTTPHeaders = HTTPHeaders()) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
    }
}
