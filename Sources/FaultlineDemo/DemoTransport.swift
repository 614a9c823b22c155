import FaultlineHTTP1

/// The HTTP version the demo's client speaks to the proxy's reverse listener.
public enum DemoHTTPVersion: String, Sendable, CaseIterable {
    /// One connection per request (`Connection: close`), as the demo always did.
    case http1_1 = "HTTP/1.1"
    /// h2c with prior knowledge (RFC 9113 §3.3): one connection per case, each request a stream,
    /// so the concurrent requests of a race are concurrent streams of that connection.
    case http2 = "HTTP/2"
}

/// One request as a client stack hands it to its transport: the method, the origin-form path,
/// the stack's own fields (credentials, cookies, content type, identity) and the body. The
/// transport adds what its protocol frames with: `Host` or `:authority`, the length, HTTP/1's
/// `Connection`.
struct DemoRequest: Sendable {
    let method: String
    let path: String
    let fields: HTTPHeaders
    let body: [UInt8]
    /// Called once the request is on its way: written to its own connection (HTTP/1.1), or
    /// handed to the connection's socket after the requests started before it (HTTP/2). A
    /// logout waits for it so that no request it overtook reaches the proxy after it.
    var written: (@Sendable () -> Void)? = nil
}

/// How a client stack's requests reach the proxy: HTTP/1.1 (`DemoHTTP1Transport`) or HTTP/2
/// (`DemoHTTP2Transport`). Every stack of one client shares its transport; the stacks keep their
/// own cookie jars.
protocol DemoTransport: Sendable {
    /// Sends `request` and returns the whole response; throws `DemoHTTPClient.Failure` when no
    /// answer came (refused, reset, closed, past the deadline).
    func exchange(_ request: DemoRequest) async throws -> DemoHTTPClient.Response

    /// Closes what the transport keeps open; requests after it fail. Requests still in flight
    /// fail too.
    func close() async
}
