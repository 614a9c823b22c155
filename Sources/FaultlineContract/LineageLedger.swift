import FaultlineCore
import FaultlineTrace

/// Credential lineages rebuilt from the trace alone: which lineage owns each fingerprint, which
/// credentials each holds now, and where its logout boundary is.
///
/// Theory of operation: `lineage.login` and `lineage.unknown-refresh` start a lineage with the
/// credentials they issued; `lineage.refresh` and `lineage.credential-issued` add credentials
/// (making them the lineage's current ones of their kind). A fingerprint stays owned by the
/// lineage it was first issued to, with the `seq` it was issued at, unless a later lineage is
/// issued the same value (then the newest owns it, as in the proxy's own book). The logout
/// boundary is the earliest of the logout request arriving (`request.received` with role
/// `logout`) and `lineage.logout` (traced when the logout is forwarded): the client has sent its
/// logout from that moment on. A credential issued to a lineage after its boundary (or flagged
/// `after_logout`) is *late*: using it is reactivation, not merely crossing the boundary.
/// `lineage.revoked` (a 2xx answer to an RFC 7009 revocation) issues nothing and moves no
/// boundary: a revocation ends credentials, it is not a logout of the lineage. It is accepted
/// like any lineage step (it proves the trace has profile data).
struct LineageLedger {
    /// Who owns a fingerprint and since when.
    struct Ownership: Sendable {
        let lineage: String
        let kind: String
        let issuedSeq: UInt64
        let issuedMono: UInt64
        /// The `lineage.*` event that issued it.
        let issuingEvent: String
        /// Issued after the owner's logout boundary.
        let late: Bool
    }

    /// Where a lineage's logout boundary is.
    struct Boundary: Sendable {
        let seq: UInt64
        let mono: UInt64
        let event: String
        /// The logout request, when the boundary is its arrival.
        let request: ClientRequest?
    }

    struct Record: Sendable {
        let id: String
        /// The event that started the lineage (`lineage.login`, ...), or the first request naming it.
        let originSeq: UInt64
        let originMono: UInt64
        let originEvent: String
        var current: [String: String] = [:]
        var logout: Boundary?
    }

    /// One `lineage.*` event, as the clauses need it.
    struct Step: Sendable {
        let event: String
        let lineage: String
        let flow: UInt64?
        let seq: UInt64
        let mono: UInt64
        let issued: [PresentedCredential]
        /// For `lineage.refresh`: the credentials the issued ones replaced.
        let replaced: [PresentedCredential]
        /// Issued after the lineage's logout boundary.
        let late: Bool
    }

    private(set) var records: [String: Record] = [:]
    /// Lineage IDs in order of first appearance.
    private(set) var order: [String] = []
    private var owners: [String: Ownership] = [:]
    /// Whether any lineage was logged out.
    private(set) var sawLogout = false
    /// Whether any credential was issued after its lineage's logout.
    private(set) var sawLateCredential = false

    /// The owner of a fingerprint, if any lineage was issued it.
    func owner(of fingerprint: String) -> Ownership? { owners[fingerprint] }

    /// The lineage record.
    func record(_ id: String) -> Record? { records[id] }

    /// The lineage a request belongs to: the owner of its refresh credential for a refresh, else
    /// of its primary credential, else of any credential, else what the proxy wrote. A lineage
    /// that started after the request arrived (its login came later) is never the request's: a
    /// client cannot have presented a credential of a login it had not made yet.
    func lineage(of request: ClientRequest) -> String? {
        func owning(_ credential: PresentedCredential?) -> String? {
            guard let credential, let owner = owners[credential.fingerprint], startedBy(owner.lineage, request)
            else { return nil }
            return owner.lineage
        }
        if request.role == "refresh", let lineage = owning(request.credential(ofKind: "refresh")) { return lineage }
        if let lineage = owning(request.primaryCredential) { return lineage }
        for credential in request.credentials {
            if let lineage = owning(credential) { return lineage }
        }
        guard let field = request.lineageField, startedBy(field, request) else { return nil }
        return field
    }

    /// Whether lineage `id` had started (or is unknown to the ledger) when `request` arrived.
    private func startedBy(_ id: String, _ request: ClientRequest) -> Bool {
        records[id].map { $0.originSeq <= request.seq } ?? true
    }

    /// Applies a `lineage.*` event; nil for events without a lineage.
    mutating func apply(_ event: TraceEvent) -> Step? {
        guard let id = event.string("lineage") else { return nil }
        let kind = event.kind.rawValue
        ensure(id, seq: event.seq, mono: event.monoNanoseconds, event: kind)
        let issued = (event.strings("issued") ?? []).compactMap(PresentedCredential.init(traceText:))
        let replaced = (event.strings("replaced") ?? []).compactMap(PresentedCredential.init(traceText:))
        if kind == "lineage.logout" {
            closeLineage(id, seq: event.seq, mono: event.monoNanoseconds, event: kind, request: nil)
        }
        let boundary = records[id]?.logout
        let late = (event.bool("after_logout") ?? false) || boundary.map { $0.seq < event.seq } ?? false
        for credential in issued {
            adopt(credential, into: id, seq: event.seq, mono: event.monoNanoseconds, event: kind, late: late)
        }
        return Step(
            event: kind, lineage: id, flow: event.flow?.rawValue, seq: event.seq, mono: event.monoNanoseconds,
            issued: issued, replaced: replaced, late: late)
    }

    /// A logout request of `lineage` arrived: its boundary starts here (if not earlier).
    mutating func logoutRequested(_ id: String, request: ClientRequest) {
        ensure(id, seq: request.seq, mono: request.mono, event: "request.received")
        closeLineage(id, seq: request.seq, mono: request.mono, event: "request.received", request: request)
    }

    /// Records a lineage first seen in a request's `lineage` field.
    mutating func ensure(_ id: String, seq: UInt64, mono: UInt64, event: String) {
        guard records[id] == nil else { return }
        records[id] = Record(id: id, originSeq: seq, originMono: mono, originEvent: event)
        order.append(id)
    }

    private mutating func closeLineage(_ id: String, seq: UInt64, mono: UInt64, event: String, request: ClientRequest?)
    {
        guard records[id]?.logout == nil else { return }
        sawLogout = true
        records[id]?.logout = Boundary(seq: seq, mono: mono, event: event, request: request)
    }

    private mutating func adopt(
        _ credential: PresentedCredential, into id: String, seq: UInt64, mono: UInt64, event: String, late: Bool
    ) {
        records[id]?.current[credential.kind] = credential.fingerprint
        // Re-issuing a value the lineage already had keeps its first issue (it was not new then),
        // unless it is re-issued after the logout: a late response setting the old session's
        // cookie again brings it back, and using it afterwards is reactivation (the
        // no-reactivation clause, README.md "Checking a trace").
        if let existing = owners[credential.fingerprint], existing.lineage == id, existing.late || !late { return }
        if late { sawLateCredential = true }
        owners[credential.fingerprint] = Ownership(
            lineage: id, kind: credential.kind, issuedSeq: seq, issuedMono: mono, issuingEvent: event, late: late)
    }
}
