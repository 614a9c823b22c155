import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1

/// The request and response every piece handles: what a client behind the proxy typically sends
/// to a local origin, and a small 200.
enum Fixtures {
    static let origin = "http://127.0.0.1:8081"

    /// The client's header fields after the request line (Host first, as clients send them).
    static let requestFields: [(String, String)] = [
        ("Host", "127.0.0.1:8081"),
        ("User-Agent", "curl/7.88.1 (x86_64-pc-linux-gnu) libcurl/7.88.1"),
        ("Accept", "application/json, text/plain;q=0.9, */*;q=0.8"),
        ("Accept-Encoding", "gzip, deflate"),
        ("Accept-Language", "en-GB,en;q=0.9"),
        ("Authorization", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQyIiwiZXhwIjoxOTAwMDAwMDAwfQ.c2lnbmF0dXJl"),
        ("Cookie", "sid=4f2a9c1e7b; theme=dark"),
        ("X-Request-ID", "7d0c2b8e-3f4a-4b61-9a2e-5c8d1f0e6a73"),
    ]

    /// An absolute-form keep-alive GET, as a forward proxy receives it.
    static let requestBytes: [UInt8] = Array(
        ("GET \(origin)/file HTTP/1.1\r\n" + requestFields.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n").utf8)

    static let responseBody = [UInt8](repeating: UInt8(ascii: "x"), count: 100)

    static let responseFields: [(String, String)] = [
        ("Server", "nginx/1.22.1"),
        ("Date", "Sun, 06 Dec 2026 18:00:00 GMT"),
        ("Content-Type", "application/octet-stream"),
        ("Content-Length", "100"),
        ("Last-Modified", "Sat, 05 Dec 2026 09:30:00 GMT"),
        ("ETag", "\"6752d1c8-64\""),
    ]

    /// The origin's answer: a 200 with a 100-byte body, on a kept-alive connection.
    static let responseBytes: [UInt8] =
        Array(("HTTP/1.1 200 OK\r\n" + responseFields.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n").utf8)
        + responseBody

    /// The request as the HTTP/1.1 framing hands it to the flow core (`FlowRequest`).
    static func flowRequest() -> FlowRequest {
        let endpoint: UpstreamEndpoint
        do {
            endpoint = try UpstreamEndpoint(url: origin)
        } catch {
            fatalError("the fixture's origin does not parse: \(error)")
        }
        return FlowRequest(
            kind: .exchange, method: "GET", endpoint: endpoint, path: "/file", query: nil, outboundTarget: "/file",
            url: "\(origin)/file", version: "HTTP/1.1", headers: HTTPHeaders(requestFields),
            authority: endpoint.hostHeaderValue, body: .none)
    }

    /// The response head as the upstream codec hands it to the flow core.
    static let responseHead = HTTPResponseHead(status: 200, reason: "OK", headers: HTTPHeaders(responseFields))

    /// A pooled upstream connection, as the driver reports it for a kept-alive origin.
    static let upstream = UpstreamConnectionInfo(id: ConnectionID(2), remoteAddress: "127.0.0.1:8081", reused: true)
}
