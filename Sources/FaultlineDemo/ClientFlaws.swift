/// Deliberate mistakes a reference client can be built with, one safeguard each. The correct
/// client has none; each broken variant has exactly one, and the contract checker must name the
/// clause it breaks: a checker that never fails proves nothing (README.md, "What the demo shows").
public struct ClientFlaws: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Every 401 starts its own refresh (no shared refresh in flight).
    public static let noSingleFlight = ClientFlaws(rawValue: 1 << 0)
    /// A 401 for a token that was already replaced still starts a refresh.
    public static let refreshOnStale401 = ClientFlaws(rawValue: 1 << 1)
    /// A request is refreshed and retried again and again while it gets 401.
    public static let retryLoop = ClientFlaws(rawValue: 1 << 2)
    /// A refresh that completes after logout still installs its tokens.
    public static let noGenerationCheck = ClientFlaws(rawValue: 1 << 3)
    /// All accounts share one cookie store.
    public static let sharedCookieStore = ClientFlaws(rawValue: 1 << 4)
    /// After logout the account's cookie store is kept, so a late Set-Cookie is used again.
    public static let keepCookiesAfterLogout = ClientFlaws(rawValue: 1 << 5)
    /// The completion callback is sent twice.
    public static let duplicateCompletion = ClientFlaws(rawValue: 1 << 6)
    /// `convert` runs even though `download` failed.
    public static let convertAfterFailedDownload = ClientFlaws(rawValue: 1 << 7)
    /// `write` runs even though the job was cancelled.
    public static let writeAfterCancel = ClientFlaws(rawValue: 1 << 8)
    /// A retried POST is sent without its body.
    public static let retryWithEmptyBody = ClientFlaws(rawValue: 1 << 9)
    /// A refresh that completes after logout has its tokens installed (instead of revoked) and
    /// the app carries on with them: logout does not cancel the work in flight. Only the check
    /// after the refresh's await is off: unlike `noGenerationCheck`, no refresh starts once the
    /// logout is known.
    public static let adoptLateTokens = ClientFlaws(rawValue: 1 << 10)
    /// A 429's or 503's `Retry-After` is not waited for: the request is sent again at once.
    public static let ignoreRetryAfter = ClientFlaws(rawValue: 1 << 11)

    /// The spelling used in reports and on the command line.
    public var name: String {
        Self.names.filter { contains($0.flaw) }.map(\.name).joined(separator: "+").nonEmpty ?? "correct"
    }

    static let names: [(flaw: ClientFlaws, name: String)] = [
        (.noSingleFlight, "no-single-flight"), (.refreshOnStale401, "refresh-on-stale-401"),
        (.retryLoop, "retry-loop"), (.noGenerationCheck, "no-generation-check"),
        (.sharedCookieStore, "shared-cookie-store"), (.keepCookiesAfterLogout, "reuse-late-set-cookie"),
        (.duplicateCompletion, "duplicate-completion"), (.convertAfterFailedDownload, "convert-after-failed-download"),
        (.writeAfterCancel, "write-after-cancel"), (.retryWithEmptyBody, "retry-with-empty-body"),
        (.adoptLateTokens, "adopt-late-tokens"), (.ignoreRetryAfter, "ignore-retry-after"),
    ]
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
