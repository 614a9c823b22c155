import FaultlineCore
import FaultlineHTTP1
import FaultlinePosix
import Foundation
import Synchronization

/// One app's HTTP stack for one account: its own cookie jar, requests sent to the proxy's
/// reverse-mode listener, one connection per request on a worker thread (blocking I/O with
/// deadlines), so the demo needs nothing but the toolchain and behaves the same on every run.
final class DemoHTTPClient: Sendable {
    struct Response: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: [UInt8]

        /// The JSON object in the body, if it is one.
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let baseURL: URL
    private let address: SocketAddress
    private let jar = CookieJar()
    private let invalidated = Atomic<Bool>(false)

    /// A client with a private cookie jar, as each account should have.
    init(baseURL: URL) {
        self.baseURL = baseURL
        guard let host = baseURL.host, let port = baseURL.port, let address = try? SocketAddress(ipAddress: host, port: port)
        else { preconditionFailure("the demo talks to an IP literal and port, not \(baseURL)") }
        self.address = address
    }

    /// Sends one request. `bearer` goes in `Authorization`; cookies come from this stack's jar,
    /// and Set-Cookie fields of the answer go back into it, unless the stack was invalidated
    /// meanwhile (then the answer is dropped and the call fails, like a cancelled task).
    func send(
        _ method: String, _ path: String, bearer: String? = nil, form: [String: String]? = nil, json: Data? = nil,
        headers extra: [String: String] = [:]
    ) async throws -> Response {
        guard !invalidated.load(ordering: .sequentiallyConsistent) else {
            throw Failure(description: "the session was invalidated")
        }
        var headers: HTTPHeaders = [("Host", "\(address)")]
        if let bearer { headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        if let cookie = jar.header { headers.add(name: "Cookie", value: cookie) }
        for (name, value) in extra.sorted(by: { $0.key < $1.key }) { headers.add(name: name, value: value) }
        var body: [UInt8] = []
        if let form {
            headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            body = Array(Self.formEncode(form).utf8)
        } else if let json {
            headers.add(name: "Content-Type", value: "application/json")
            body = Array(json)
        }
        if !body.isEmpty || method == "POST" { headers.add(name: "Content-Length", value: String(body.count)) }
        headers.add(name: "Connection", value: "close")
        var request: [UInt8] = []
        HTTP1Encoder.encode(HTTPRequestHead(method: method, target: path, version: .http1_1, headers: headers), into: &request)
        request += body
        let response = try await Self.exchange(request, method: method, with: address)
        guard !invalidated.load(ordering: .sequentiallyConsistent) else {
            throw Failure(description: "the session was invalidated while the request was in flight")
        }
        jar.store(setCookie: response.headers.values(name: "set-cookie"))
        return response
    }

    /// Stops the stack: answers still in flight are dropped, cookies are never used again.
    func invalidate() {
        invalidated.store(true, ordering: .sequentiallyConsistent)
    }

    /// One request on its own connection, on a worker thread so no task blocks the cooperative pool.
    private static func exchange(_ request: [UInt8], method: String, with address: SocketAddress) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try blockingExchange(request, method: method, with: address) })
            }
        }
    }

    private static func blockingExchange(_ request: [UInt8], method: String, with address: SocketAddress) throws -> Response {
        let deadline = MonotonicInstant.now().advanced(by: .seconds(15))
        let connection = try BlockingConnection(connectingTo: address, timeout: .seconds(5))
        defer { connection.close() }
        try connection.sendAll(request, deadline: deadline)
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
                    guard let head else { throw Failure(description: "a response without a head") }
                    return Response(status: head.status, headers: head.headers, body: body)
                }
            }
            let bytes = try connection.read(deadline: deadline)
            if bytes.isEmpty {
                decoder.receiveEOF()
                if decoder.isAtMessageBoundary, head == nil { throw Failure(description: "the connection closed early") }
            } else {
                decoder.receive(bytes)
            }
        }
    }

    static func formEncode(_ fields: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.sorted { $0.key < $1.key }.map { key, value in
            let escaped = value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
            return "\(key)=\(escaped)"
        }.joined(separator: "&")
    }
}
