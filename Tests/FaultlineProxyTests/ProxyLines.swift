/// The action lines the session tests share (``ProxyActionLines`` renders them), so a sequence
/// every exchange goes through is written once.
enum Lines {
    /// The connection waits for the client's next request (HTTP/1 and HTTP/2 alike).
    static let idle = "arm clientIdle 120s"

    /// HTTP/1: a new connection's first request, refused; a refusal by the route (after the head)
    /// cancels the idle timer once more than one by the decoder.
    static func refused(routed: Bool) -> [String] {
        [idle, "cancel clientIdle"] + (routed ? ["cancel clientIdle"] : [])
    }

    /// HTTP/1: a new connection's first request goes to `origin`, which answered the connect; the
    /// response head is awaited.
    static func opened(_ origin: String) -> [String] {
        [idle, "cancel clientIdle", "connect \(origin)", "arm responseHead 60s"]
    }

    /// HTTP/1: the response was read whole, its connection pooled, and the client is idle again.
    static let pooled = ["cancel responseHead", "release upstream", idle]

    /// HTTP/2: the connection's first stream, flow `flow`, goes to `origin` (the reverse
    /// listener's by default), which answered the connect; the response head is awaited.
    static func opened(h2 flow: String = "f1", _ origin: String = "http://127.0.0.1:3000") -> [String] {
        [idle, "\(flow) connect \(origin)", "cancel clientIdle", "\(flow) arm responseHead 60s"]
    }

    /// HTTP/2: `flow`'s response was read whole, its connection pooled, and no stream is open.
    static func pooled(h2 flow: String = "f1") -> [String] {
        ["\(flow) cancel responseHead", "\(flow) release upstream", idle]
    }
}
