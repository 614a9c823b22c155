import FaultlineHTTP1
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A plain blocking TCP client for server tests; every read has a 5-second deadline, so a proxy
/// that never answers fails the test instead of hanging it.
final class BlockingClient {
    struct Response {
        var status = 0
        var headers = HTTPHeaders()
        var body = ""
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    private let fd: Int32
    private var decoder = HTTP1ResponseDecoder()

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw Failure(description: "connect to port \(port) failed: errno \(errno)")
        }
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
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
        var buffer = [UInt8](repeating: 0, count: 65536)
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
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 { throw Failure(description: "read failed or timed out: errno \(errno)") }
            if count == 0 {
                decoder.receiveEOF()
                if decoder.isAtMessageBoundary { throw Failure(description: "connection closed before a response") }
                continue
            }
            decoder.receive(buffer[..<count])
        }
    }

    /// True when the proxy closed the connection (read returns 0) within the deadline.
    func readsEOF() -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }
}
