import FaultlineRules

/// Each recorded credential's history, built from a recording: issued by which answer, accepted
/// by which requests, rejected from which point on and with which answer. Sans-I/O: recorded
/// steps in (`record(_:)`, in the order the recorded server answered them), facts out.
///
/// Which lineage issued a credential, which credentials a refresh rotated, and which lineage a
/// logout closed come from the same `LineageBook` the live proxy's `LineageTracker` keeps, so
/// `faultline run` and `replay serve` agree on what a credential is. What only a recording shows
/// is added here: the recorded server's rejections (401, or `invalid_grant`, RFC 6749 §5.2) and
/// their cause. A rejection is put down to, in this order: a revocation of its lineage (a logout,
/// an RFC 7009 revocation of the lineage's refresh token, a reuse); an RFC 7009 revocation of
/// the credential itself; for a rotated refresh token, its reuse (RFC 6749 §10.4, RFC 9700
/// §4.14.2: the server then revokes the whole lineage, so the reuse's answer revokes it from
/// there on); else expiry, after the time the recording took to reject it. Credentials are named
/// by fingerprint only (`IssuedSecrets.canonical`): never a secret.
struct CredentialHistory: Sendable {
    /// A recorded exchange as the model reads it.
    struct Step: Sendable {
        enum Role: Sendable { case login, refresh, logout, revoke, other }

        /// The recorded exchange's index among the replayable ones.
        let index: Int
        let role: Role
        let status: Int
        /// A 401, or an `invalid_grant` error.
        let rejects: Bool
        /// Issued credentials the request presents.
        let presented: [Credential]
        /// Credentials the answer issues.
        let issued: [Credential]
        /// Monotonic nanoseconds of the recorded request going upstream, and of its answer.
        let sentAt: UInt64
        let answeredAt: UInt64
        /// The recorded wall time of the request (nanoseconds since the epoch); nil when the
        /// capture's does not parse.
        var sentWall: Int64? = nil

        var succeeded: Bool { (200..<300).contains(status) }
    }

    private struct Record: Sendable {
        var lifecycle = CredentialLifecycle()
        var kind: CredentialKind
        var issuedAt: UInt64?
        /// The refresh that rotated it (a refresh token).
        var rotatedBy: Int?
        /// The RFC 7009 revocation of it.
        var revokedBy: Int?
    }

    private var book = LineageBook()
    private var records: [String: Record] = [:]
    /// Lineages revoked in the recording: why, and by which recorded exchange's answer.
    private var revokedLineages: [LineageID: (cause: CredentialRejection.Cause, by: Int)] = [:]

    init() {}

    /// Reads one recorded exchange; returns the lifecycle facts it made, by fingerprint.
    @discardableResult
    mutating func record(_ step: Step) -> [(fingerprint: String, fact: CredentialLifecycle.Fact)] {
        var facts: [(String, CredentialLifecycle.Fact)] = []
        for credential in step.presented {
            var record = records[credential.fingerprint] ?? Record(kind: credential.kind)
            if step.rejects {
                if let rejection = rejection(of: credential, record, at: step) {
                    facts.append((credential.fingerprint, record.lifecycle.rejected(rejection)))
                }
            } else if step.status < 400 {
                facts.append((credential.fingerprint, record.lifecycle.accepted(by: step.index)))
            }
            records[credential.fingerprint] = record
        }
        followLineages(step)
        for credential in step.issued where records[credential.fingerprint]?.issuedAt == nil {
            var record = records[credential.fingerprint] ?? Record(kind: credential.kind)
            record.issuedAt = step.answeredAt
            records[credential.fingerprint] = record
        }
        return facts
    }

    /// The rejection in force for `fingerprint` after the recording; nil when it was never
    /// rejected or was accepted again after.
    func rejection(of fingerprint: String) -> CredentialRejection? {
        records[fingerprint]?.lifecycle.rejection
    }

    /// The kind the credential was issued or presented as; nil for one the recording never had.
    func kind(of fingerprint: String) -> CredentialKind? {
        records[fingerprint]?.kind
    }

    /// The lineage a credential belongs to (the shared `LineageBook`'s answer).
    func lineage(of fingerprint: String) -> LineageID? {
        guard let record = records[fingerprint] else { return nil }
        return book.lineage(of: [Credential(kind: record.kind, place: Self.place, fingerprint: fingerprint)])
    }

    /// What `Credential.place` says for a recorded credential: the model keeps no places.
    static let place = "recorded"

    private func rejection(of credential: Credential, _ record: Record, at step: Step) -> CredentialRejection? {
        // Steps come in answer order: a revocation known now was answered before this request.
        if let lineage = book.lineage(of: [credential]), let revoked = revokedLineages[lineage] {
            return CredentialRejection(cause: revoked.cause, after: revoked.by, lifetime: nil, answer: step.index)
        }
        if let revokedBy = record.revokedBy {
            return CredentialRejection(cause: .revocation, after: revokedBy, lifetime: nil, answer: step.index)
        }
        if credential.kind == .refresh, let rotatedBy = record.rotatedBy {
            return CredentialRejection(cause: .reuse, after: rotatedBy, lifetime: nil, answer: step.index)
        }
        guard let issuedAt = record.issuedAt, step.sentAt >= issuedAt else { return nil }
        return CredentialRejection(
            cause: .expiry, after: nil, lifetime: step.sentAt - issuedAt, answer: step.index,
            recordedExpiry: step.sentWall)
    }

    /// The lineage facts of a step, through the shared book, and the revocations they make.
    private mutating func followLineages(_ step: Step) {
        switch step.role {
        case .refresh where step.rejects:
            // RFC 9700 §4.14.2: a rotated refresh token presented again revokes its lineage.
            for credential in step.presented where credential.kind == .refresh {
                guard records[credential.fingerprint]?.rotatedBy != nil, let lineage = book.lineage(of: [credential]),
                    revokedLineages[lineage] == nil
                else { continue }
                revokedLineages[lineage] = (.reuse, step.index)
            }
        case .refresh where step.succeeded && !step.issued.isEmpty:
            for event in book.refreshSucceeded(presented: step.presented, issued: step.issued) {
                guard case .refresh(_, _, let replaced, _, _) = event else { continue }
                // Rotation (RFC 6749 §10.4): the refresh token presented, and the one replaced.
                for old in replaced + step.presented where old.kind == .refresh {
                    guard var record = records[old.fingerprint], record.rotatedBy == nil else { continue }
                    record.rotatedBy = step.index
                    records[old.fingerprint] = record
                }
            }
        case .login where step.succeeded && !step.issued.isEmpty:
            _ = book.loginSucceeded(issued: step.issued)
        case .logout where step.status < 400:
            for event in book.logoutSent(presented: step.presented) where revokedLineages[event.lineage] == nil {
                revokedLineages[event.lineage] = (.logout, step.index)
            }
        case .revoke where step.succeeded:
            for credential in step.presented {
                if credential.kind == .refresh, let lineage = book.lineage(of: [credential]) {
                    // RFC 7009 §2.1: revoking a refresh token invalidates the grant's access tokens too.
                    if revokedLineages[lineage] == nil { revokedLineages[lineage] = (.revocation, step.index) }
                } else {
                    records[credential.fingerprint]?.revokedBy = step.index
                }
            }
        default:
            if step.succeeded, !step.issued.isEmpty {
                _ = book.credentialsIssued(presented: step.presented, issued: step.issued)
            }
        }
    }
}
