/// The lineage state machine: which lineages exist, which are open, which credentials each
/// holds and which lineage owns a fingerprint.
///
/// Theory of operation: a lineage is born at a successful login with the credentials it issued
/// (`L1`, `L2`, ... in order). Every fingerprint ever issued to a lineage stays owned by it (an
/// old, replaced access token is still that lineage's: presenting it is the stale use the
/// contract looks for), unless a later lineage is issued the same value. A refresh or any other
/// response issuing credentials to a request of lineage `L` makes them `L`'s current ones of
/// their kind. Sending a logout that presents any credential of `L` closes `L`; a closed
/// lineage still adopts credentials from late responses, flagged `afterLogout`, so their later
/// use is attributed to it. A successful revocation (RFC 7009) of `L`'s credentials is reported
/// but changes nothing: only a logout closes a lineage, and a revoked token presented later is
/// still `L`'s. One func per input, each returning the events to trace.
///
/// One implementation for both sides: the live proxy's `LineageTracker` drives it from the
/// traffic it sees, and `faultline replay serve` drives it from a recording (FaultlineReplay's
/// `CredentialHistory`), so both agree on which lineage issued a credential, which credentials a
/// refresh rotated, and which lineages a logout closed.
public struct LineageBook: Sendable {
    private struct Record {
        let id: LineageID
        var isOpen = true
        var current: [CredentialKind: Credential] = [:]
        /// Numbered ahead of its login's completion (`reserve()`), not started yet.
        var isReserved = false
    }

    /// Index i holds lineage i + 1.
    private var records: [Record] = []
    /// Fingerprint → the newest lineage it was issued to, and as which kind.
    private var owners: [String: (id: LineageID, kind: CredentialKind)] = [:]

    /// An empty book: no lineage yet.
    public init() {}

    /// False once a logout presenting one of `id`'s credentials was sent; false for a lineage
    /// the book does not have.
    public func isOpen(_ id: LineageID) -> Bool {
        records.indices.contains(id.rawValue - 1) && records[id.rawValue - 1].isOpen
    }

    /// The lineage owning any of `credentials`; the newest when they belong to several.
    public func lineage(of credentials: [Credential]) -> LineageID? {
        credentials.compactMap { owners[$0.fingerprint]?.id }.max()
    }

    /// The kind a fingerprint was last issued as; nil when no lineage was ever issued it.
    public func kind(of fingerprint: String) -> CredentialKind? {
        owners[fingerprint]?.kind
    }

    /// A logout request was sent upstream.
    public mutating func logoutSent(presented: [Credential]) -> [LineageEvent] {
        guard let id = lineage(of: presented), records[id.rawValue - 1].isOpen else { return [] }
        records[id.rawValue - 1].isOpen = false
        return [.logout(id, presented: presented)]
    }

    /// A login answered 2xx and issued credentials; it starts the lineage `reserved` for it, if any.
    public mutating func loginSucceeded(issued: [Credential], reserved: LineageID? = nil) -> [LineageEvent] {
        if let reserved, records.indices.contains(reserved.rawValue - 1), records[reserved.rawValue - 1].isReserved {
            records[reserved.rawValue - 1].isReserved = false
            _ = adopt(issued, into: reserved)
            return [.login(reserved, issued: issued)]
        }
        return [.login(start(with: issued), issued: issued)]
    }

    /// Numbers the lineage a login will start before its response is complete, so that a capture
    /// can name the credentials of the response after it as they are written. A reservation its
    /// login never uses stays a gap in the numbering and is not listed.
    public mutating func reserve() -> LineageID {
        let id = LineageID(records.count + 1)
        records.append(Record(id: id, isReserved: true))
        return id
    }

    /// A refresh answered 2xx and issued credentials. The owner is found from the presented
    /// refresh-kind credentials; when the request presented none of that kind (a cookie-based
    /// refresh), from any presented credential.
    public mutating func refreshSucceeded(presented: [Credential], issued: [Credential]) -> [LineageEvent] {
        let refreshCredentials = presented.filter { $0.kind == .refresh }
        guard let id = lineage(of: refreshCredentials.isEmpty ? presented : refreshCredentials) else {
            return [.unknownRefresh(start(with: issued), presented: presented, issued: issued)]
        }
        let afterLogout = !records[id.rawValue - 1].isOpen
        let replaced = adopt(issued, into: id)
        return [.refresh(id, presented: presented, replaced: replaced, issued: issued, afterLogout: afterLogout)]
    }

    /// A revocation naming `revoked` was answered 2xx (RFC 7009 §2.2: the token is invalid from
    /// now on, or was already). Reported for the lineage owning them, flagged `afterLogout` when
    /// it is closed; a token no lineage owns is not followed.
    public func revocationSucceeded(revoked: [Credential]) -> [LineageEvent] {
        guard let id = lineage(of: revoked) else { return [] }
        return [.revoked(id, revoked: revoked, afterLogout: !records[id.rawValue - 1].isOpen)]
    }

    /// Some other response issued credentials. Reported when the request belongs to a lineage
    /// and the credentials are new to it, or the lineage is closed; a request with no lineage
    /// (a pre-login anonymous cookie) is not followed.
    public mutating func credentialsIssued(presented: [Credential], issued: [Credential]) -> [LineageEvent] {
        guard let id = lineage(of: presented) else { return [] }
        let record = records[id.rawValue - 1]
        let isNew = issued.contains { record.current[$0.kind]?.fingerprint != $0.fingerprint }
        guard isNew || !record.isOpen else { return [] }
        _ = adopt(issued, into: id)
        return [.credentialIssued(id, issued: issued, afterLogout: !record.isOpen)]
    }

    /// Every lineage in order.
    public func infos() -> [LineageInfo] {
        records.filter { !$0.isReserved }.map { record in
            LineageInfo(
                id: record.id, isOpen: record.isOpen,
                credentials: CredentialKind.allCases.compactMap { record.current[$0] })
        }
    }

    private mutating func start(with issued: [Credential]) -> LineageID {
        let id = LineageID(records.count + 1)
        records.append(Record(id: id))
        _ = adopt(issued, into: id)
        return id
    }

    /// Makes `issued` the lineage's current credentials; returns the ones they replaced.
    private mutating func adopt(_ issued: [Credential], into id: LineageID) -> [Credential] {
        var replaced: [Credential] = []
        for credential in issued {
            if let old = records[id.rawValue - 1].current[credential.kind], old.fingerprint != credential.fingerprint,
                !replaced.contains(old)
            {
                replaced.append(old)
            }
            records[id.rawValue - 1].current[credential.kind] = credential
            owners[credential.fingerprint] = (id, credential.kind)
        }
        return replaced
    }
}
