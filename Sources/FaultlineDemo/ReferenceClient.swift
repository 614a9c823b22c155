import FaultlineHTTP1
import FaultlinePosix
public import Foundation
import Synchronization

/// A client app for the demo and the mutation table: business calls that refresh and retry once,
/// several accounts each with its own cookie store, and a job pipeline that respects its
/// dependencies. Built with `ClientFlaws`, it makes exactly those mistakes.
public final class ReferenceClient: Sendable {
    public let flaws: ClientFlaws
    let baseURL: URL
    /// Only with `.sharedCookieStore`: the one HTTP stack every account uses.
    private let sharedHTTP: DemoHTTPClient?

    /// How every stack of this client reaches the server.
    let transport: any DemoTransport

    /// A client speaking HTTP/1.1 (a connection per request) to `baseURL`, an IP literal and port.
    public convenience init(baseURL: URL, flaws: ClientFlaws = []) {
        guard let host = baseURL.host, let port = baseURL.port,
            let address = try? SocketAddress(ipAddress: host, port: port)
        else { preconditionFailure("the demo talks to an IP literal and port, not \(baseURL)") }
        self.init(baseURL: baseURL, flaws: flaws, transport: DemoHTTP1Transport(address: address))
    }

    /// A client whose stacks all go over `transport`.
    init(baseURL: URL, flaws: ClientFlaws, transport: any DemoTransport) {
        self.baseURL = baseURL
        self.flaws = flaws
        self.transport = transport
        self.sharedHTTP =
            flaws.contains(.sharedCookieStore) ? DemoHTTPClient(baseURL: baseURL, transport: transport) : nil
    }

    /// A signed-in account: its HTTP stack (own cookie store unless the flaw says otherwise) and tokens.
    public final class Account: Sendable {
        let name: String
        let flaws: ClientFlaws
        let auth: AuthSession
        private let stack: HTTPStack

        init(name: String, http: DemoHTTPClient, flaws: ClientFlaws) {
            self.name = name
            self.flaws = flaws
            let stack = HTTPStack(http)
            self.stack = stack
            self.auth = AuthSession(flaws: flaws) { stack.current }
        }

        /// The account's HTTP stack now.
        var http: DemoHTTPClient { stack.current }

        /// A business call: on 401, one refresh (shared with concurrent calls) and one retry; a
        /// second 401 surfaces as the result (`.retryLoop` keeps going). A 429 or 503 that says
        /// `Retry-After` in seconds is waited out, then sent once more (`.ignoreRetryAfter`: at once).
        public func call(_ method: String, _ path: String, json: Data? = nil, idempotencyKey: String? = nil)
            async throws -> Int
        {
            let generation = await auth.generation
            var token = await auth.accessToken
            let refreshAtStart = await auth.refreshToken
            var headers: [String: String] = [:]
            if let idempotencyKey { headers["Idempotency-Key"] = idempotencyKey }
            var response = try await send(generation, method, path, bearer: token, json: json, headers: headers)
            if response.status == 429 || response.status == 503,
                let seconds = response.headers.first(name: "Retry-After").flatMap(UInt64.init), seconds <= 60
            {
                if !flaws.contains(.ignoreRetryAfter) { try await Task.sleep(for: .seconds(seconds)) }
                response = try await send(generation, method, path, bearer: token, json: json, headers: headers)
            }
            var attempts = 1
            let limit = flaws.contains(.retryLoop) ? 4 : 2
            while response.status == 401, attempts < limit {
                token = try await auth.token(
                    afterRejectionOf: token, startedIn: generation, refreshAtStart: refreshAtStart)
                // The article's rule again: the refresh was an await, and the user may have signed
                // out during it; a retry of a signed-out session is never sent (`send` checks).
                // (Exploration found this one: the retry went out on the old stack between the
                // logout and its teardown, with the pre-logout token.)
                let body = flaws.contains(.retryWithEmptyBody) ? nil : json
                response = try await send(generation, method, path, bearer: token, json: body, headers: headers)
                attempts += 1
            }
            return response.status
        }

        /// A request with the cookie store only (no token), as a web view or image loader makes.
        public func cookieCall(_ path: String) async throws -> Int {
            try await send(await auth.generation, "GET", path).status
        }

        /// Sends a request of the session started in `generation`: not at all once the user signed
        /// out since (`loggedOut`), and counted as being sent until it is on its way, so that a
        /// logout starting meanwhile goes out after it (`AuthSession.beginSend`).
        private func send(
            _ generation: Int, _ method: String, _ path: String, bearer: String? = nil, json: Data? = nil,
            headers: [String: String] = [:]
        ) async throws -> DemoHTTPClient.Response {
            let ticket = try await auth.beginSend(generation)
            defer { ticket.end() }
            return try await http.send(method, path, bearer: bearer, json: json, headers: headers, written: ticket.end)
        }

        public func logout() async throws {
            try await auth.logout()
            // The correct client drops the account's cookie store with the session and carries on
            // (signed out) with a fresh one, so a late Set-Cookie lands in a store nobody uses again.
            // (A client without generation discipline does not cancel its work in flight either, so
            // a late refresh's retry still goes out on the account's stack.)
            guard
                flaws.isDisjoint(with: [
                    .keepCookiesAfterLogout, .sharedCookieStore, .noGenerationCheck, .adoptLateTokens,
                ])
            else { return }
            // Invalidating the stack drops its answers in flight; a late refresh's must still
            // arrive, for its tokens to be revoked (otherwise whether they are depends on which
            // answer the client reads first).
            await auth.settleAbandonedRefresh()
            stack.replace().invalidate()
        }
    }

    /// Signs an account in on its own HTTP stack (or the shared one).
    public func signIn(_ name: String, reusing previous: Account? = nil) async throws -> Account {
        let http: DemoHTTPClient
        if let sharedHTTP {
            http = sharedHTTP
        } else if flaws.contains(.keepCookiesAfterLogout), let previous {
            http = previous.http
        } else {
            http = DemoHTTPClient(baseURL: baseURL, transport: transport)
        }
        let account = Account(name: name, http: http, flaws: flaws)
        try await account.auth.login(name)
        return account
    }
}

/// An account's current HTTP stack, swapped for a fresh one at logout.
final class HTTPStack: Sendable {
    private let client: Mutex<DemoHTTPClient>

    init(_ client: DemoHTTPClient) { self.client = Mutex(client) }

    var current: DemoHTTPClient { client.withLock { $0 } }

    /// Installs a fresh stack for the same server and returns the old one.
    func replace() -> DemoHTTPClient {
        client.withLock { client in
            defer { client = client.fresh() }
            return client
        }
    }
}
