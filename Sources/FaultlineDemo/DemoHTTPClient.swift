import FaultlineCore
import FaultlineHTTP1
import Foundation
import Synchronization

/// One app's HTTP stack for one account: its own cookie jar, requests sent to the proxy's
/// reverse-mode listener over the client's `DemoTransport` (HTTP/1.1, a connection per request;
/// or HTTP/2, a stream per request on one connection).
final class DemoHTTPClient: Sendable {
    struct Response: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: [UInt8]

        /// The JSON object in the body, if it is one.
        var json: JSONValue? { JSONValue.parse(body).flatMap { $0.members == nil ? nil : $0 } }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let baseURL: URL
    let transport: any DemoTransport
    private let jar = CookieJar()
    private let invalidated = Atomic<Bool>(false)

    /// A client with a private cookie jar, as each account should have.
    init(baseURL: URL, transport: any DemoTransport) {
        self.baseURL = baseURL
        self.transport = transport
    }

    /// A fresh stack (empty cookie jar) for the same server over the same transport.
    func fresh() -> DemoHTTPClient {
        DemoHTTPClient(baseURL: baseURL, transport: transport)
    }

    /// Sends one request. `bearer` goes in `Authorization`; cookies come from this stack's jar,
    /// and Set-Cookie fields of the answer go back into it, unless the stack was invalidated
    /// meanwhile (then the answer is dropped and the call fails, like a cancelled task).
    func send(
        _ method: String, _ path: String, bearer: String? = nil, form: [String: String]? = nil, json: Data? = nil,
        headers extra: [String: String] = [:], written: (@Sendable () -> Void)? = nil
    ) async throws -> Response {
        guard !invalidated.load(ordering: .sequentiallyConsistent) else {
            throw Failure(description: "the session was invalidated")
        }
        var headers = HTTPHeaders()
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
        let response = try await transport.exchange(
            DemoRequest(method: method, path: path, fields: headers, body: body, written: written))
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

    static func formEncode(_ fields: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.sorted { $0.key < $1.key }.map { key, value in
            let escaped = value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
            return "\(key)=\(escaped)"
        }.joined(separator: "&")
    }
}
