/// An endpoint of the backend, with the path parameters it carries.
enum Route: Hashable, Sendable {
    case token
    /// RFC 7009 token revocation.
    case revoke
    case logout
    case messages
    case avatar
    case count
    case me
    case notes
    case createJob
    case job(id: String)
    case jobStep(id: String, step: JobStore.Step)
    case cancelJob(id: String)
    case completeJob(id: String)
    case stats
    case expire
    case reset

    /// `"METHOD /pattern"`, the key of `BackendStats.requests`.
    var pattern: String {
        switch self {
        case .token: "POST /oauth/token"
        case .revoke: "POST /oauth/revoke"
        case .logout: "POST /logout"
        case .messages: "GET /v1/messages"
        case .avatar: "GET /v1/avatar"
        case .count: "GET /v1/count"
        case .me: "GET /v1/me"
        case .notes: "POST /v1/notes"
        case .createJob: "POST /jobs"
        case .job: "GET /jobs/{id}"
        case .jobStep(_, let step): "POST /jobs/{id}/\(step.rawValue)"
        case .cancelJob: "POST /jobs/{id}/cancel"
        case .completeJob: "POST /jobs/{id}/complete"
        case .stats: "GET /_backend/stats"
        case .expire: "POST /_backend/expire"
        case .reset: "POST /_backend/reset"
        }
    }

    /// The test-control endpoints under `/_backend/`: no auth, not counted in the stats.
    var isIntrospection: Bool {
        switch self {
        case .stats, .expire, .reset: true
        default: false
        }
    }
}

/// What the router made of a method and path.
enum RouteMatch: Equatable, Sendable {
    case found(Route)
    /// No endpoint has this path (404).
    case notFound
    /// The path exists with other methods (405, with these in `Allow`, RFC 9110 §15.5.6).
    case methodNotAllowed(allowed: [String])
}

/// Maps a request's method and path to an endpoint. Pure; paths are compared as sent (no
/// percent-decoding, no trailing-slash folding: `/v1/me/` is not `/v1/me`).
enum Router {
    /// The endpoint for `method` on `path`. HEAD is accepted wherever GET is (RFC 9110 §9.3.2);
    /// the connection then sends the head without the body.
    static func match(method: String, path: String) -> RouteMatch {
        let candidates = endpoints(at: path)
        guard !candidates.isEmpty else { return .notFound }
        let wanted = method == "HEAD" ? "GET" : method
        if let hit = candidates.first(where: { $0.method == wanted }) { return .found(hit.route) }
        var allowed = candidates.map(\.method)
        if allowed.contains("GET") { allowed.append("HEAD") }
        return .methodNotAllowed(allowed: allowed)
    }

    /// Every (method, endpoint) pair whose pattern matches `path`.
    private static func endpoints(at path: String) -> [(method: String, route: Route)] {
        guard path.hasPrefix("/") else { return [] }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch segments {
        case ["oauth", "token"]: return [("POST", .token)]
        case ["oauth", "revoke"]: return [("POST", .revoke)]
        case ["logout"]: return [("POST", .logout)]
        case ["v1", "messages"]: return [("GET", .messages)]
        case ["v1", "avatar"]: return [("GET", .avatar)]
        case ["v1", "count"]: return [("GET", .count)]
        case ["v1", "me"]: return [("GET", .me)]
        case ["v1", "notes"]: return [("POST", .notes)]
        case ["jobs"]: return [("POST", .createJob)]
        case ["_backend", "stats"]: return [("GET", .stats)]
        case ["_backend", "expire"]: return [("POST", .expire)]
        case ["_backend", "reset"]: return [("POST", .reset)]
        default: break
        }
        guard segments.count >= 2, segments[0] == "jobs", !segments[1].isEmpty else { return [] }
        let id = segments[1]
        if segments.count == 2 { return [("GET", .job(id: id))] }
        guard segments.count == 3 else { return [] }
        switch segments[2] {
        case "cancel": return [("POST", .cancelJob(id: id))]
        case "complete": return [("POST", .completeJob(id: id))]
        default: return JobStore.Step(rawValue: segments[2]).map { [("POST", .jobStep(id: id, step: $0))] } ?? []
        }
    }
}
