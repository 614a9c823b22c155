/// The stable name of one clause of the session-boundary contract (the clause table of
/// Rules/contracts/README.md says what each checks).
///
/// Contract files, reports, JUnit test cases and the `--format json` output all use the raw
/// value (`"logout-boundary"`), so it never changes once published; the Swift names may.
public struct ClauseID: RawRepresentable, Hashable, Comparable, Sendable, CaseIterable, Codable,
    CodingKeyRepresentable, CustomStringConvertible
{
    /// The dashed name, e.g. `"single-flight-refresh"`.
    public let rawValue: String

    /// Wraps a dashed name; nil unless it is one of ``allCases``.
    public init?(rawValue: String) {
        guard Self.allCases.contains(where: { $0.rawValue == rawValue }) else { return nil }
        self.rawValue = rawValue
    }

    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// Refreshes of one credential lineage never overlap, and a refresh credential is never
    /// presented twice (rotation would revoke the whole family).
    public static let singleFlightRefresh = ClauseID("single-flight-refresh")
    /// A refresh is justified by a rejection of the lineage's current access token; a late 401
    /// for an already replaced token starts no refresh.
    public static let noStaleRefresh = ClauseID("no-stale-refresh")
    /// A business request is refreshed-and-retried at most once; a second 401 surfaces as an error.
    public static let boundedRetry = ClauseID("bounded-retry")
    /// After a lineage's logout is sent, no request carries a credential it held before the
    /// logout, and no refresh of it starts.
    public static let logoutBoundary = ClauseID("logout-boundary")
    /// No request carries credentials of two lineages.
    public static let accountIsolation = ClauseID("account-isolation")
    /// Credentials set by responses that arrive after the logout are never used.
    public static let noReactivation = ClauseID("no-reactivation")
    /// A declared completion or callback request happens exactly once per key.
    public static let exactlyOnce = ClauseID("exactly-once")
    /// A dependent step is never requested before its dependency succeeded, nor a commit after a cancel mark.
    public static let dependencyRespected = ClauseID("dependency-respected")
    /// A retried non-idempotent request carries its full body again, or an idempotency key.
    public static let replaySafeRetry = ClauseID("replay-safe-retry")
    /// A request is not sent again before the `Retry-After` of its 429 or 503 has elapsed.
    public static let retryAfterRespected = ClauseID("retry-after-respected")

    /// Every clause, in the order of the clause table in Rules/contracts/README.md (the order
    /// reports list them in).
    public static let allCases: [ClauseID] = [
        singleFlightRefresh, noStaleRefresh, boundedRetry, logoutBoundary, accountIsolation, noReactivation,
        exactlyOnce, dependencyRespected, replaySafeRetry, retryAfterRespected,
    ]

    /// What must hold, in one sentence, for reports and `--help`.
    public var requirement: String {
        switch rawValue {
        case "single-flight-refresh":
            "refreshes of one credential lineage never overlap, and a refresh credential is never presented twice"
        case "no-stale-refresh":
            "a refresh is justified by a rejection of the lineage's current access token, not by a late 401 for a replaced one"
        case "bounded-retry": "a business request is refreshed-and-retried at most once; a second 401 surfaces"
        case "logout-boundary":
            "after a lineage's logout is sent, no request carries its credentials and no refresh of it starts"
        case "account-isolation": "no request carries credentials of two lineages"
        case "no-reactivation": "credentials set by responses that arrive after logout are never used"
        case "exactly-once": "a declared completion or callback request happens exactly once per key"
        case "dependency-respected":
            "a dependent step is never requested before its dependency succeeded, nor a commit after a cancel mark"
        case "replay-safe-retry":
            "a retried non-idempotent request carries its full body again, or an idempotency key"
        default: "a request is not sent again before the Retry-After of its 429 or 503 has elapsed"
        }
    }

    /// Position in ``allCases``, so sorting follows the clause table.
    var order: Int { Self.allCases.firstIndex(of: self) ?? Self.allCases.count }

    public static func < (lhs: ClauseID, rhs: ClauseID) -> Bool { lhs.order < rhs.order }

    public var description: String { rawValue }

    // MARK: Codable as the bare string

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let clause = ClauseID(rawValue: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "unknown clause '\(text)'")
        }
        self = clause
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public init?<T: CodingKey>(codingKey: T) { self.init(rawValue: codingKey.stringValue) }

    public var codingKey: any CodingKey { ClauseCodingKey(stringValue: rawValue) }

    private struct ClauseCodingKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
