import FaultlineCore

/// Accounts' token families: login, refresh with rotation and reuse detection, logout, expiry.
///
/// Theory of operation. Each password login starts a **family** (what the proxy calls a
/// credential lineage): one session cookie for its whole life, and one current access/refresh
/// pair. A refresh that presents the family's *current* refresh token rotates the pair: both old
/// tokens stop working and new ones are issued (OAuth 2.0 Security BCP, refresh token rotation).
/// A refresh that presents an *older* refresh token of the family is a replay: either an attacker
/// or a buggy client holds a rotated token, and the server cannot tell which, so it revokes the
/// whole family (RFC 6819 §5.2.2.3); from then on every token of the family, the newest included,
/// is refused. Logout and token revocation (RFC 7009) revoke a family the same way. Every token
/// ever issued stays in `owners`, so an old token is told apart from an unknown one
/// (`superseded` versus `unknown`).
///
/// A plain value with no locking and no clock of its own: the caller passes `now` and keeps the
/// store behind one lock (`BackendService`), so each call is one atomic step.
struct TokenStore: Sendable {
    typealias FamilyID = Int

    /// Who a valid credential belongs to.
    struct Identity: Hashable, Sendable {
        let family: FamilyID
        let account: String
    }

    /// The credentials of a login or a rotation.
    struct Grant: Equatable, Sendable {
        let identity: Identity
        let accessToken: String
        let refreshToken: String
        /// The family's session cookie value (the same for every grant of a family).
        let sessionToken: String
        let expiresIn: Duration
    }

    /// Why a credential was refused.
    enum Rejection: String, Sendable {
        /// Never issued here (or the store was reset since).
        case unknown
        /// The current access token of a live family, past its expiry.
        case expired
        /// An access token replaced by a rotation.
        case superseded
        /// Its family was revoked by logout or by refresh token reuse.
        case revoked
    }

    enum AccessCheck: Equatable, Sendable {
        case valid(Identity)
        case rejected(Rejection)
    }

    enum RefreshOutcome: Equatable, Sendable {
        /// The presented token was current: here is the next pair.
        case rotated(Grant)
        /// The presented token was already rotated: the family is now revoked.
        case reuseDetected(Identity)
        case rejected(Rejection)
    }

    enum Revocation: String, Sendable {
        case logout
        case reuse
        /// RFC 7009 token revocation of one of the family's tokens.
        case revocation
    }

    /// What a token revocation request found (RFC 7009 §2.1).
    enum RevocationOutcome: Equatable, Sendable {
        /// The token was its live family's current token: the family is now revoked.
        case revoked(Identity)
        /// The token is known but its family was already revoked, or the token was already
        /// replaced by a rotation: nothing left to do.
        case alreadyInvalid
        /// Never issued here. RFC 7009 §2.2 still answers 200: an invalid token is no error.
        case unknown
    }

    /// Totals since the store was created.
    struct Counters: Equatable, Sendable {
        var logins = 0
        var refreshes = 0
        var reuseDetections = 0
        var revokedFamilies = 0
        var logouts = 0
        var revocations = 0
    }

    private struct Family: Sendable {
        let account: String
        var access: String
        var refresh: String
        let session: String
        var accessExpiry: MonotonicInstant
        var revocation: Revocation?
    }

    private enum Kind: Sendable {
        case access
        case refresh
        case session
    }

    private struct Owner: Sendable {
        let family: FamilyID
        let kind: Kind
    }

    let tokenLifetime: Duration
    private let makeToken: @Sendable (String) -> String
    /// Family `id` is at index `id - 1`; families are never removed (only revoked).
    private var families: [Family] = []
    private var owners: [String: Owner] = [:]
    private(set) var counters = Counters()

    /// An empty store. `makeToken` turns a prefix into a fresh unique token; tests may pass a
    /// predictable one.
    init(tokenLifetime: Duration, makeToken: @escaping @Sendable (String) -> String = { RandomToken.make(prefix: $0) })
    {
        self.tokenLifetime = tokenLifetime
        self.makeToken = makeToken
    }

    /// An empty store with the same token lifetime and generator (for a reset).
    func emptied() -> TokenStore {
        TokenStore(tokenLifetime: tokenLifetime, makeToken: makeToken)
    }

    /// Number of families ever started.
    var familyCount: Int { families.count }

    // MARK: - Issuing

    /// Starts a new family for `account` (a password grant, RFC 6749 §4.3) and returns its first
    /// grant. Earlier families of the account stay valid: each login is its own lineage.
    mutating func login(account: String, now: MonotonicInstant) -> Grant {
        let id = families.count + 1
        let family = Family(
            account: account, access: issue(.access, for: id), refresh: issue(.refresh, for: id),
            session: issue(.session, for: id), accessExpiry: now.advanced(by: tokenLifetime), revocation: nil)
        families.append(family)
        counters.logins += 1
        return grant(id)
    }

    /// A refresh token grant (RFC 6749 §6) with rotation and reuse detection; see the type's
    /// theory of operation.
    mutating func refresh(_ token: String, now: MonotonicInstant) -> RefreshOutcome {
        guard let owner = owners[token], owner.kind == .refresh else { return .rejected(.unknown) }
        let id = owner.family
        guard families[id - 1].revocation == nil else { return .rejected(.revoked) }
        guard families[id - 1].refresh == token else {
            revoke(id, because: .reuse)
            counters.reuseDetections += 1
            return .reuseDetected(identity(id))
        }
        families[id - 1].access = issue(.access, for: id)
        families[id - 1].refresh = issue(.refresh, for: id)
        families[id - 1].accessExpiry = now.advanced(by: tokenLifetime)
        counters.refreshes += 1
        return .rotated(grant(id))
    }

    // MARK: - Checking

    /// Whether `token` is a live family's current, unexpired access token (RFC 6750 §3.1:
    /// anything else is `invalid_token`).
    func checkAccess(_ token: String, now: MonotonicInstant) -> AccessCheck {
        guard let owner = owners[token], owner.kind == .access else { return .rejected(.unknown) }
        let family = families[owner.family - 1]
        if family.revocation != nil { return .rejected(.revoked) }
        if family.access != token { return .rejected(.superseded) }
        if now >= family.accessExpiry { return .rejected(.expired) }
        return .valid(identity(owner.family))
    }

    /// Whether `token` is the session cookie of a live family. Sessions do not expire; they end
    /// with their family.
    func checkSession(_ token: String) -> AccessCheck {
        guard let owner = owners[token], owner.kind == .session else { return .rejected(.unknown) }
        if families[owner.family - 1].revocation != nil { return .rejected(.revoked) }
        return .valid(identity(owner.family))
    }

    /// The family any token (of any kind, current or not) was issued to, revoked or not.
    func identity(ofToken token: String) -> Identity? {
        owners[token].map { identity($0.family) }
    }

    /// Why the family was revoked, or nil while it is live.
    func revocation(of family: FamilyID) -> Revocation? {
        families[family - 1].revocation
    }

    // MARK: - Ending

    /// Revokes the live family of the first of `tokens` that was ever issued by this store (any
    /// kind, current or not: a client logging out with an expired or old token still means it).
    /// Returns that family, or nil when none of the tokens leads to a live family.
    mutating func logout(presenting tokens: [String]) -> Identity? {
        for token in tokens {
            guard let owner = owners[token], families[owner.family - 1].revocation == nil else { continue }
            revoke(owner.family, because: .logout)
            counters.logouts += 1
            return identity(owner.family)
        }
        return nil
    }

    /// RFC 7009 token revocation. The token's kind is looked up in the store; `hint` only says
    /// where to look first (§2.1: a wrong hint must not change the outcome), so it is ignored
    /// here. Revoking the current access or refresh token revokes the whole family: §2.1 says
    /// revoking a refresh token SHOULD invalidate the access tokens of the same grant, and revoking
    /// an access token MAY revoke the refresh token too. A superseded token revokes nothing (it
    /// is already unusable), so a client cleaning up after a late refresh cannot log out a
    /// newer session by accident. A session cookie value is not a token this endpoint takes.
    mutating func revoke(token: String) -> RevocationOutcome {
        guard let owner = owners[token], owner.kind != .session else { return .unknown }
        let family = families[owner.family - 1]
        let isCurrent = owner.kind == .access ? family.access == token : family.refresh == token
        guard family.revocation == nil, isCurrent else { return .alreadyInvalid }
        revoke(owner.family, because: .revocation)
        counters.revocations += 1
        return .revoked(identity(owner.family))
    }

    /// Makes the current access token of every live family (of `account` only, when given) expire
    /// now. Returns how many tokens were still unexpired.
    mutating func expireAccessTokens(account: String? = nil, now: MonotonicInstant) -> Int {
        var expired = 0
        for index in families.indices where families[index].revocation == nil {
            if let account, families[index].account != account { continue }
            if families[index].accessExpiry > now {
                families[index].accessExpiry = now
                expired += 1
            }
        }
        return expired
    }

    // MARK: - Helpers

    private mutating func issue(_ kind: Kind, for family: FamilyID) -> String {
        let prefix =
            switch kind {
            case .access: "at_"
            case .refresh: "rt_"
            case .session: "sess_"
            }
        let token = makeToken(prefix)
        precondition(owners[token] == nil, "token generator repeated a token")
        owners[token] = Owner(family: family, kind: kind)
        return token
    }

    private mutating func revoke(_ id: FamilyID, because reason: Revocation) {
        precondition(families[id - 1].revocation == nil, "family \(id) revoked twice")
        families[id - 1].revocation = reason
        counters.revokedFamilies += 1
    }

    private func identity(_ id: FamilyID) -> Identity {
        Identity(family: id, account: families[id - 1].account)
    }

    private func grant(_ id: FamilyID) -> Grant {
        let family = families[id - 1]
        return Grant(
            identity: identity(id), accessToken: family.access, refreshToken: family.refresh,
            sessionToken: family.session, expiresIn: tokenLifetime)
    }
}
