import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One app's HTTP stack for one account: a URLSession with its own cookie store, pointed at the
/// proxy's reverse-mode listener (Foundation on Linux ignores proxy dictionaries, DESIGN.md §7).
final class DemoHTTPClient: Sendable {
    struct Response: Sendable {
        let status: Int
        let headers: [String: String]
        let body: Data

        /// The JSON object in the body, if it is one.
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let baseURL: URL
    private let session: URLSession

    /// A client with a private cookie store (`.ephemeral`), as each account should have.
    init(baseURL: URL) {
        self.baseURL = baseURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 15
        configuration.httpMaximumConnectionsPerHost = 8
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        self.session = URLSession(configuration: configuration)
    }

    /// Sends one request. `bearer` goes in `Authorization`; cookies come from this client's store.
    func send(
        _ method: String, _ path: String, bearer: String? = nil, form: [String: String]? = nil, json: Data? = nil,
        headers: [String: String] = [:]
    ) async throws -> Response {
        guard let url = URL(string: path, relativeTo: baseURL) else { throw Failure(description: "bad path \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let form {
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(Self.formEncode(form).utf8)
        } else if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = json
        } else if method == "POST" {
            request.httpBody = Data()
        }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw Failure(description: "no HTTP response") }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return Response(status: http.statusCode, headers: fields, body: data)
    }

    /// Stops the session; late responses to it no longer reach anyone.
    func invalidate() {
        session.invalidateAndCancel()
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
