import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A minimal OAuth-style client of the reference backend, talking to the proxy's reverse listener.
struct Client: Sendable {
    let baseURL: URL
    private let session: URLSession

    init(baseURL: URL) {
        self.baseURL = baseURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        session = URLSession(configuration: configuration)
    }

    struct Tokens: Sendable {
        let access: String
        let refresh: String
    }

    /// `POST /oauth/token` with `grant_type=password` (RFC 6749 §4.3).
    func login() async throws -> Tokens {
        try await token(form: "grant_type=password&username=alice&password=secret")
    }

    /// `POST /oauth/token` with `grant_type=refresh_token` (RFC 6749 §6).
    func refresh(_ tokens: Tokens) async throws -> Tokens {
        try await token(form: "grant_type=refresh_token&refresh_token=\(tokens.refresh)")
    }

    /// `GET /v1/me` with the access token; returns the status.
    func me(_ tokens: Tokens) async throws -> Int {
        var request = URLRequest(url: baseURL.appendingPathComponent("v1/me"))
        request.setValue("Bearer \(tokens.access)", forHTTPHeaderField: "Authorization")
        return try await send(request).status
    }

    /// `POST /logout` with the access token; returns the status.
    func logout(_ tokens: Tokens) async throws -> Int {
        var request = URLRequest(url: baseURL.appendingPathComponent("logout"))
        request.httpMethod = "POST"
        request.setValue("Bearer \(tokens.access)", forHTTPHeaderField: "Authorization")
        return try await send(request).status
    }

    private func token(form: String) async throws -> Tokens {
        var request = URLRequest(url: baseURL.appendingPathComponent("oauth/token"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(form.utf8)
        let (status, body) = try await send(request)
        guard status == 200, let json = try JSONSerialization.jsonObject(with: body) as? [String: Any],
            let access = json["access_token"] as? String, let refresh = json["refresh_token"] as? String
        else { throw Failure(description: "token endpoint answered \(status)") }
        return Tokens(access: access, refresh: refresh)
    }

    private func send(_ request: URLRequest) async throws -> (status: Int, body: Data) {
        let (body, response) = try await session.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, body)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }
}
