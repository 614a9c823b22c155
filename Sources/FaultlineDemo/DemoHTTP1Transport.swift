import FaultlineCore
import FaultlineHTTP1
import FaultlinePosix
import Foundation

/// The demo's HTTP/1.1: one connection per request (`Connection: close`) on a worker thread,
/// blocking I/O with deadlines, so the demo needs nothing but the toolchain and behaves the same
/// on every run.
struct DemoHTTP1Transport: DemoTransport {
    let address: SocketAddress

    func exchange(_ request: DemoRequest) async throws -> DemoHTTPClient.Response {
        let bytes = Self.encode(request, host: "\(address)")
        let address = address
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        try Self.blockingExchange(
                            bytes, method: request.method, with: address, written: request.written)
                    })
            }
        }
    }

    /// Nothing stays open between requests.
    func close() async {}

    /// The request's bytes: `Host` first, the stack's fields, `Content-Length` when there is a
    /// body or the method is POST, `Connection: close`.
    static func encode(_ request: DemoRequest, host: String) -> [UInt8] {
        var headers: HTTPHeaders = [("Host", host)]
        for field in request.fields { headers.append(field) }
        if !request.body.isEmpty || request.method == "POST" {
            headers.add(name: "Content-Length", value: String(request.body.count))
        }
        headers.add(name: "Connection", value: "close")
        var bytes: [UInt8] = []
        HTTP1Encoder.encode(
            HTTPRequestHead(method: request.method, target: request.path, version: .http1_1, headers: headers),
            into: &bytes)
        return bytes + request.body
    }

    private static func blockingExchange(
        _ request: [UInt8], method: String, with address: SocketAddress, written: (@Sendable () -> Void)?
    ) throws -> DemoHTTPClient.Response {
        let deadline = MonotonicInstant.now().advanced(by: .seconds(15))
        let connection = try BlockingConnection(connectingTo: address, timeout: .seconds(5))
        defer { connection.close() }
        try connection.sendAll(request, deadline: deadline)
        written?()
        var decoder = HTTP1ResponseDecoder()
        decoder.expectResponse(toMethod: method)
        var head: HTTPResponseHead?
        var body: [UInt8] = []
        while true {
            while let event = try decoder.nextEvent() {
                switch event {
                case .interim: continue
                case .head(let received): head = received
                case .body(let bytes): body += bytes
                case .end:
                    guard let head else { throw DemoHTTPClient.Failure(description: "a response without a head") }
                    return DemoHTTPClient.Response(status: head.status, headers: head.headers, body: body)
                }
            }
            let bytes = try connection.read(deadline: deadline)
            if bytes.isEmpty {
                decoder.receiveEOF()
                if decoder.isAtMessageBoundary, head == nil {
                    throw DemoHTTPClient.Failure(description: "the connection closed early")
                }
            } else {
                decoder.receive(bytes)
            }
        }
    }
}
