import FaultlineCore
import FaultlineHTTP1
import Synchronization

/// The backend without sockets: turns a whole request (head and body) into a response.
///
/// Thread-safe: every connection of every loop calls `respond`, and the one lock around the
/// state makes each request one atomic step (the store is small and no handler does I/O or waits,
/// so one lock is simpler than finer ones and never contended for long).
final class BackendService: Sendable {
    let configuration: BackendConfiguration
    private let state: StateLock<BackendState>
    /// Times a connection stopped reading because its client was not reading its answers; tests
    /// watch it to know that backpressure engaged.
    let backpressurePauses = Atomic<Int>(0)

    /// A service with empty stores. `makeToken` replaces the random token generator in tests.
    init(configuration: BackendConfiguration, makeToken: (@Sendable (String) -> String)? = nil) {
        self.configuration = configuration
        state = StateLock(BackendState(configuration: configuration, makeToken: makeToken))
    }

    /// Routes and answers one request. `now` defaults to the clock read under the lock, so a
    /// request that starts after `POST /_backend/expire` returned always sees the expiry.
    func respond(to head: HTTPRequestHead, body: [UInt8], now: MonotonicInstant? = nil) -> BackendResponse {
        let path: String
        let rawQuery: String?
        do throws(HTTP1Error) {
            switch try RequestTarget.parse(head.target, method: head.method) {
            case .origin(let originPath, let query), .absolute(_, _, let originPath, let query):
                (path, rawQuery) = (originPath, query)
            case .authority, .asterisk:
                return .error(400, "invalid_request", "the request-target must be a path such as /v1/me")
            }
        } catch {
            return .error(400, "invalid_request", error.description)
        }
        let route: Route
        switch Router.match(method: head.method, path: path) {
        case .found(let found):
            route = found
        case .notFound:
            return .error(404, "not_found", "no endpoint at \(path)")
        case .methodNotAllowed(let allowed):
            return .error(
                405, "method_not_allowed", "\(path) takes \(allowed.joined(separator: ", ")), not \(head.method)",
                headers: [("Allow", allowed.joined(separator: ", "))])
        }
        let query: FormFields
        do {
            query = try FormFields.decode(Array((rawQuery ?? "").utf8))
        } catch {
            return .error(400, "invalid_request", "malformed query string: \(error)")
        }
        let request = BackendRequest(route: route, method: head.method, headers: head.headers, query: query, body: body)
        return state.withLock { state in state.respond(to: request, now: now ?? .now()) }
    }

    /// The counters so far.
    func stats() -> BackendStats {
        state.withLock { $0.stats }
    }

    /// Expires every current access token (of `account` only, when given) now; returns how many.
    func expireAccessTokens(account: String?) -> Int {
        state.withLock { $0.tokens.expireAccessTokens(account: account, now: .now()) }
    }

    /// Forgets every family, job, note and counter.
    func reset() {
        state.withLock { $0.reset() }
    }
}
