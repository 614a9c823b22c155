import FaultlineCore
import FaultlineHTTP1
import FaultlinePosix

/// A blocking HTTP client for server tests over FaultlinePosix's `BlockingConnection`; every read
/// and write has a 5-second deadline, so a proxy that never answers fails the test instead of
/// hanging it.
final class BlockingClient {
    struct Response {
        var status = 0
        var headers = HTTPHeaders()
        var body = ""
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    private let connection: BlockingConnection
    private var decoder = HTTP1ResponseDecoder()
    /// Every read and write waits at most this long.
    private static let timeout: Duration = .seconds(5)

    init(port: Int) throws {
        connection = try BlockingConnection(
            connectingTo: try SocketAddress(parsing: "127.0.0.1:\(port)"), timeout: Self.timeout)
    }

    private var deadline: MonotonicInstant { MonotonicInstant.now().advanced(by: Self.timeout) }

    /// Sends `text`; a connection the proxy already closed is the test's to notice when it reads.
    func send(_ text: String) {
        try? connection.sendAll(Array(text.utf8), deadline: deadline)
    }

    /// Sends a GET in absolute form through the proxy and reads the response.
    func get(_ url: String, method: String = "GET") throws -> Response {
        let host = url.split(separator: "/")[1]
        send("\(method) \(url) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
        return try readResponse(method: method)
    }

    func readResponse(method: String = "GET") throws -> Response {
        decoder.expectResponse(toMethod: method)
        var response = Response()
        var body: [UInt8] = []
        while true {
            while let event = try decoder.nextEvent() {
                switch event {
                case .interim: continue
                case .head(let head):
                    response.status = head.status
                    response.headers = head.headers
                case .body(let bytes): body += bytes
                case .end:
                    response.body = String(decoding: body, as: UTF8.self)
                    return response
                }
            }
            let bytes: [UInt8]
            do {
                bytes = try connection.read(deadline: deadline)
            } catch {
                throw Failure(description: "read failed or timed out: \(error)")
            }
            if bytes.isEmpty {
                decoder.receiveEOF()
                if decoder.isAtMessageBoundary { throw Failure(description: "connection closed before a response") }
                continue
            }
            decoder.receive(bytes[...])
        }
    }

    /// True when the proxy closed the connection (read returns 0) within the deadline.
    func readsEOF() -> Bool {
        (try? connection.read(maximum: 1, deadline: deadline))?.isEmpty == true
    }
}
