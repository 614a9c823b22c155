import FaultlineConfig
import FaultlineCore
import FaultlineHTTP1

/// Everything the backend remembers, and the endpoint handlers that read and change it.
///
/// A plain value: `BackendService` keeps the one instance behind a lock and calls
/// `respond(to:now:)` for each request, so every request is one atomic step over the whole state
/// (a login and a concurrent refresh can never see half of each other). Tests drive it directly,
/// with a chosen `now`, without sockets.
struct BackendState: Sendable {
    let configuration: BackendConfiguration
    var tokens: TokenStore
    var jobs = JobStore()
    var notes = NoteStore()
    /// Counters that the stores do not keep themselves.
    var extra = BackendStats()
    /// `GET /v1/count` calls per account.
    var countCalls: [String: Int] = [:]

    init(configuration: BackendConfiguration, makeToken: (@Sendable (String) -> String)? = nil) {
        self.configuration = configuration
        if let makeToken {
            tokens = TokenStore(tokenLifetime: configuration.tokenLifetime, makeToken: makeToken)
        } else {
            tokens = TokenStore(tokenLifetime: configuration.tokenLifetime)
        }
    }

    /// Answers one routed request at instant `now`.
    mutating func respond(to request: BackendRequest, now: MonotonicInstant) -> BackendResponse {
        if !request.route.isIntrospection { extra.requests[request.route.pattern, default: 0] += 1 }
        do throws(BadRequest) {
            switch request.route {
            case .token: return try token(request, now: now)
            case .logout: return try logout(request)
            case .revoke: return try revoke(request)
            case .messages, .avatar, .count, .me, .notes: return try business(request, now: now)
            case .createJob: return try createJob(request)
            case .job(let id): return jobStatus(id)
            case .jobStep(let id, let step): return try runStep(step, of: id, request)
            case .cancelJob(let id): return cancelJob(id)
            case .completeJob(let id): return completeJob(id)
            case .stats: return .json(200, stats.json)
            case .expire: return expire(request, now: now)
            case .reset:
                reset()
                return .noContent()
            }
        } catch {
            return error.response
        }
    }

    /// Forgets every family, job, note and counter (`POST /_backend/reset`); the configuration and
    /// the token generator stay.
    mutating func reset() {
        self = BackendState(configuration: configuration, tokens: tokens.emptied())
    }

    private init(configuration: BackendConfiguration, tokens: TokenStore) {
        self.configuration = configuration
        self.tokens = tokens
    }

    /// All counters, merged from the stores.
    var stats: BackendStats {
        var stats = extra
        let counters = tokens.counters
        stats.logins = counters.logins
        stats.refreshes = counters.refreshes
        stats.reuseDetections = counters.reuseDetections
        stats.revokedFamilies = counters.revokedFamilies
        stats.logouts = counters.logouts
        stats.revocations = counters.revocations
        stats.notesCreated = notes.noteCount
        stats.idempotentReplays = notes.replayCount
        stats.jobsCreated = jobs.jobCount
        stats.completionCalls = jobs.completionCalls
        return stats
    }

    /// `POST /_backend/expire[?account=U]`: every current access token (of U) expires now.
    private mutating func expire(_ request: BackendRequest, now: MonotonicInstant) -> BackendResponse {
        let count = tokens.expireAccessTokens(account: request.query.value("account"), now: now)
        return .json(200, JSON.object(["expired": JSON.number(count)]))
    }
}
