import FaultlineConfig
public import FaultlineCore
import FaultlineHTTP1
public import FaultlinePosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking client for a running proxy's control API: what `faultline holds`, `release`, ...
/// and tests use. One connection per call (`Connection: close`), every wait bounded.
public struct ControlClient: Sendable {
    /// Where the control API listens.
    public let address: SocketAddress
    /// The bearer token; nil sends no `Authorization` (the API then answers 401).
    public let token: String?
    /// Bound on connecting and on the answer's arrival, on top of a call's own `wait`.
    public var timeout: Duration

    /// A client for the API at `address`.
    public init(address: SocketAddress, token: String?, timeout: Duration = .seconds(10)) {
        self.address = address
        self.token = token
        self.timeout = timeout
    }

    /// A client for `http://IP:PORT` (the `url` of a control file; `localhost` means 127.0.0.1).
    /// Throws `ControlClientError` for any other form.
    public init(url: String, token: String?, timeout: Duration = .seconds(10)) throws(ControlClientError) {
        var rest = Substring(url)
        guard rest.hasPrefix("http://") else {
            throw ControlClientError("the control URL must look like http://127.0.0.1:PORT, not '\(url)'")
        }
        rest = rest.dropFirst("http://".count)
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        if rest.hasPrefix("localhost:") { rest = "127.0.0.1:" + rest.dropFirst("localhost:".count) }
        do {
            self.init(address: try SocketAddress(parsing: String(rest)), token: token, timeout: timeout)
        } catch {
            let reason = (error as? SocketAddressError).map { ": \($0.reason)" } ?? ""
            throw ControlClientError("the control URL must look like http://127.0.0.1:PORT, not '\(url)'\(reason)")
        }
    }

    /// Sends `method path` (the path already percent-encoded; see `pathSegment`) with an optional
    /// JSON body and returns the answer, whatever its status. `wait` extends the deadline for calls
    /// that take time on purpose (a hold wait). Throws `ControlClientError` when no answer came:
    /// nothing listens, the connection broke, the deadline passed, or the answer was not HTTP.
    public func call(
        _ method: String, _ path: String, body: JSONValue? = nil, wait: Duration = .zero
    ) throws(ControlClientError) -> ControlResponse {
        let deadline = MonotonicInstant.now().advanced(by: timeout + wait)
        let connection: BlockingConnection
        do {
            connection = try BlockingConnection(connectingTo: address, timeout: timeout)
        } catch {
            throw ControlClientError(
                "cannot reach the control API at \(address): \(error)", connectionRefused: error.isConnectionRefused)
        }
        defer { connection.close() }
        do {
            try connection.sendAll(request(method, path, body: body), deadline: deadline)
            return try readResponse(connection, method: method, deadline: deadline)
        } catch {
            if error.isTimedOut { throw ControlClientError("the control API at \(address) did not answer in time") }
            throw ControlClientError("the control API at \(address) broke the connection: \(error)")
        }
    }

    /// Percent-encodes one path segment (a hold, scenario or rule name) per RFC 3986 §3.3: every
    /// byte outside the unreserved set becomes `%XX`, so `/` in a name cannot split the path.
    public static func pathSegment(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(digits[Int(byte >> 4)])
                encoded.unicodeScalars.append(digits[Int(byte & 0x0F)])
            }
        }
        return encoded
    }

    private func request(_ method: String, _ path: String, body: JSONValue?) -> [UInt8] {
        var headers: HTTPHeaders = [
            ("Host", address.description), ("Connection", "close"), ("Accept", "application/json"),
        ]
        if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        let payload = body?.jsonBytes() ?? []
        if body != nil || method == "POST" || method == "PUT" {
            if body != nil { headers.add(name: "Content-Type", value: "application/json") }
            headers.add(name: "Content-Length", value: String(payload.count))
        }
        var bytes: [UInt8] = []
        HTTP1Encoder.encode(HTTPRequestHead(method: method, target: path, headers: headers), into: &bytes)
        bytes.append(contentsOf: payload)
        return bytes
    }

    private func readResponse(
        _ connection: BlockingConnection, method: String, deadline: MonotonicInstant
    ) throws(SystemError) -> ControlResponse {
        var decoder = HTTP1ResponseDecoder()
        decoder.expectResponse(toMethod: method)
        var status = 0
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []
        while true {
            do throws(HTTP1Error) {
                while let event = try decoder.nextEvent() {
                    switch event {
                    case .interim: continue
                    case .head(let head):
                        status = head.status
                        headers = head.headers.map { ($0.name, $0.value) }
                    case .body(let bytes): body.append(contentsOf: bytes)
                    case .end: return ControlResponse(status: status, headers: headers, body: body)
                    }
                }
            } catch {
                throw SystemError(errno: EPROTO, call: "answer was not HTTP/1.1 (\(error.description))")
            }
            let bytes = try connection.read(deadline: deadline)
            if bytes.isEmpty {
                decoder.receiveEOF()
                if decoder.isAtMessageBoundary && status == 0 { throw SystemError(errno: ECONNRESET, call: "read") }
            } else {
                decoder.receive(bytes)
            }
        }
    }
}

/// An answer of the control API.
public struct ControlResponse: Sendable {
    /// The HTTP status (200, 404, 408, ...).
    public let status: Int
    /// The header fields in the order received.
    public let headers: [(name: String, value: String)]
    /// The body bytes (JSON for every answer of the API).
    public let body: [UInt8]

    /// The first value of a header (names compared case-insensitively).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body parsed as JSON; nil when it is not.
    public var json: JSONValue? { JSONValue.parseJSON(body) }

    /// True for 2xx.
    public var succeeded: Bool { (200..<300).contains(status) }

    /// The `error` member of an error answer, with its suggestion, as one sentence; falls back to
    /// the status when the body has none.
    public var errorMessage: String {
        guard case .object(let members)? = json,
            case .string(let message)? = members.first(where: { $0.key == "error" })?.value
        else { return "the control API answered \(status)" }
        if case .string(let suggestion)? = members.first(where: { $0.key == "suggestion" })?.value,
            !message.contains("did you mean")
        {
            return message + " (did you mean '\(suggestion)'?)"
        }
        return message
    }
}

/// A control call that got no answer, with a sentence a person can act on.
public struct ControlClientError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, naming the address.
    public let description: String
    /// Nothing listens at the address (a stale control file, a stopped proxy).
    public let connectionRefused: Bool

    init(_ description: String, connectionRefused: Bool = false) {
        self.description = description
        self.connectionRefused = connectionRefused
    }
}
