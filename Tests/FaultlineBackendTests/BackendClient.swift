import FaultlineConfig
import FaultlineCore
import FaultlineHTTP1
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A plain blocking HTTP/1.1 client for backend tests. Every read has a 5-second deadline, so a
/// backend that never answers fails the test instead of hanging it. One instance is one
/// connection; requests on it reuse the connection (keep-alive).
final class BackendClient {
    struct Response {
        var status = 0
        var headers = HTTPHeaders()
        var body: [UInt8] = []

        var text: String { String(decoding: body, as: UTF8.self) }
        var json: JSONValue? { JSONValue.parseJSON(body) }

        /// The string at a JSON pointer of the body, e.g. `"/access_token"`.
        func string(_ pointer: String) -> String? {
            guard case .string(let value) = json?.value(at: pointer) else { return nil }
            return value
        }

        /// The integer at a JSON pointer of the body.
        func int(_ pointer: String) -> Int? {
            guard case .number(let value) = json?.value(at: pointer) else { return nil }
            return Int(exactly: value.double)
        }

        /// The session cookie value set by this response (`Set-Cookie: session=V; ...`).
        var sessionCookie: String? {
            for value in headers.values(name: "Set-Cookie") where value.hasPrefix("session=") {
                return String(value.dropFirst("session=".count).prefix { $0 != ";" })
            }
            return nil
        }
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    private let fd: Int32
    private var decoder = HTTP1ResponseDecoder()
    let port: Int

    /// Connects to 127.0.0.1:`port`. `receiveBuffer` shrinks the kernel's receive buffer, so a
    /// client that does not read pushes back on the server sooner.
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        self.port = port
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
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
        send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Sends one request with `Host` and (for a body) `Content-Length`, then reads its response.
    func request(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: String? = nil
    ) throws -> Response {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        send(text)
        return try readResponse(method: method)
    }

    /// `POST /oauth/token` with a form body.
    func token(_ form: String) throws -> Response {
        try request(
            "POST", "/oauth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: form)
    }

    /// `POST /oauth/revoke` (RFC 7009) with a form body.
    func revoke(_ form: String) throws -> Response {
        try request(
            "POST", "/oauth/revoke", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: form)
    }

    /// A GET with a Bearer token and/or a session cookie.
    func call(_ path: String, bearer: String? = nil, session: String? = nil) throws -> Response {
        try call("GET", path, bearer: bearer, session: session)
    }

    /// A request (a POST has an empty body) with a Bearer token and/or a session cookie.
    func call(_ method: String, _ path: String, bearer: String? = nil, session: String? = nil) throws -> Response {
        var headers: [(String, String)] = []
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        if let session { headers.append(("Cookie", "session=\(session)")) }
        return try request(method, path, headers: headers, body: method == "POST" ? "" : nil)
    }

    /// Reads the response to a request already sent. With `stopAtInterim`, returns the first 1xx
    /// response instead (and the final one must then be read with `finishResponse()`).
    func readResponse(method: String = "GET", stopAtInterim: Bool = false) throws -> Response {
        decoder.expectResponse(toMethod: method)
        return try finishResponse(stopAtInterim: stopAtInterim)
    }

    /// Reads the rest of a response whose request was already announced to the decoder.
    func finishResponse(stopAtInterim: Bool = false) throws -> Response {
        var response = Response()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            while let event = try decoder.nextEvent() {
                switch event {
                case .interim(let head):
                    if stopAtInterim { return Response(status: head.status, headers: head.headers) }
                case .head(let head):
                    response.status = head.status
                    response.headers = head.headers
                case .body(let bytes): response.body += bytes
                case .end: return response
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

    /// Sends FIN: the server reads EOF.
    func shutdownWrite() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// True when the server closed the connection (read returns 0) within the deadline.
    func readsEOF() -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }
}

/// A login's credentials, as the token response and Set-Cookie gave them.
struct Credentials {
    var access: String
    var refresh: String
    var session: String?

    init(_ response: BackendClient.Response) throws {
        access = try #require(response.string("/access_token"))
        refresh = try #require(response.string("/refresh_token"))
        session = response.sessionCookie
    }
}
