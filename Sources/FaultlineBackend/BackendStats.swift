import FaultlineConfig
import FaultlineCore

/// A snapshot of what the backend has seen since it started (or was last reset).
///
/// Get one from `ReferenceBackend.stats()` in-process, or as JSON from `GET /_backend/stats`
/// (same field names). Tests read it to check the server-side symptoms of a client's behaviour:
/// a second refresh with an old token shows up as `reuseDetections`, a duplicated callback as a
/// completion count of 2.
public struct BackendStats: Sendable, Equatable {
    /// Password logins that issued tokens (each started a family).
    public var logins = 0
    /// Password logins refused (locked account).
    public var rejectedLogins = 0
    /// Successful refresh token rotations.
    public var refreshes = 0
    /// Refreshes that presented an already-rotated refresh token (each revoked its family).
    public var reuseDetections = 0
    /// Refreshes refused for an unknown or revoked refresh token (no reuse counted).
    public var rejectedRefreshes = 0
    /// Families revoked, by logout, by token revocation or by reuse detection.
    public var revokedFamilies = 0
    /// Logouts that revoked a live family.
    public var logouts = 0
    /// Token revocation requests (RFC 7009, `POST /oauth/revoke`), whatever they found.
    public var revocationRequests = 0
    /// Token revocations that revoked a live family (the token was its current one).
    public var revocations = 0
    /// Requests answered 401 because their credential was missing, expired, superseded or revoked.
    public var unauthorized = 0
    /// Requests that carried a Bearer token and a session cookie of two different families.
    public var mixedCredentials = 0
    /// Notes created (idempotent replays not included).
    public var notesCreated = 0
    /// `POST /v1/notes` answered from an earlier request with the same `Idempotency-Key`.
    public var idempotentReplays = 0
    /// Jobs created.
    public var jobsCreated = 0
    /// Completion callbacks per job id (as written in the path).
    public var completionCalls: [String: Int] = [:]
    /// Requests per endpoint, keyed `"METHOD /pattern"` such as `"POST /jobs/{id}/complete"`;
    /// the `/_backend/` endpoints and unknown paths are not counted.
    public var requests: [String: Int] = [:]

    /// Empty counters.
    public init() {}

    /// Completion callbacks received for job `id` (0 when none).
    public func completions(job id: String) -> Int { completionCalls[id] ?? 0 }

    /// Requests received for an endpoint pattern such as `"GET /v1/messages"` (0 when none).
    public func requestCount(_ endpoint: String) -> Int { requests[endpoint] ?? 0 }

    /// The JSON body of `GET /_backend/stats`; dictionary keys are sorted so the text is stable.
    var json: JSONValue {
        func counts(_ dictionary: [String: Int]) -> JSONValue {
            .object(
                dictionary.sorted { $0.key < $1.key }.map {
                    JSONMember(key: $0.key, value: .number(Double($0.value)))
                })
        }
        let numbers: [(String, Int)] = [
            ("logins", logins), ("rejectedLogins", rejectedLogins), ("refreshes", refreshes),
            ("reuseDetections", reuseDetections), ("rejectedRefreshes", rejectedRefreshes),
            ("revokedFamilies", revokedFamilies), ("logouts", logouts), ("revocationRequests", revocationRequests),
            ("revocations", revocations), ("unauthorized", unauthorized),
            ("mixedCredentials", mixedCredentials), ("notesCreated", notesCreated),
            ("idempotentReplays", idempotentReplays), ("jobsCreated", jobsCreated),
        ]
        return .object(
            numbers.map { JSONMember(key: $0.0, value: .number(Double($0.1))) } + [
                JSONMember(key: "completionCalls", value: counts(completionCalls)),
                JSONMember(key: "requests", value: counts(requests)),
            ])
    }
}
