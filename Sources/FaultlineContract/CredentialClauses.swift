/// `no-reactivation`, `account-isolation` and `logout-boundary`: what credentials a request may
/// carry, judged when the request arrives.
///
/// One request is blamed on one clause, the most specific that applies (among enabled ones):
/// a credential issued after its lineage's logout (a late refresh, a late Set-Cookie) makes it
/// **no-reactivation**; otherwise credentials of two lineages make it **account-isolation**;
/// otherwise a credential its lineage held before the logout, sent after the logout, makes it
/// **logout-boundary**. So a shared cookie store shows as isolation, a missing generation check
/// as reactivation, and a client that keeps using a signed-out session as the boundary.
///
/// Cleanup is not use: a logout or revocation request (role `logout` or `revoke`, RFC 7009)
/// presenting a late credential, or one of a closed lineage, breaks neither no-reactivation nor
/// logout-boundary. A correct client whose refresh completed after the logout revokes what it
/// received and never stores it; logging out twice is harmless. Any other request presenting
/// those credentials stays a violation. Isolation is still judged on cleanup requests.
///
/// Without auth-profile data (no `credentials` on requests), isolation falls back to the Cookie
/// header: one cookie name with two different values on one request is two logins' cookies.
struct CredentialClauses {
    mutating func requestArrived(_ request: ClientRequest, ledger: LineageLedger, log: inout ViolationLog) {
        var owned: [(credential: PresentedCredential, owner: LineageLedger.Ownership)] = []
        for credential in request.credentials {
            if let owner = ledger.owner(of: credential.fingerprint) { owned.append((credential, owner)) }
        }
        if log.isEnabled(.noReactivation), !request.isCleanup, let late = owned.first(where: { $0.owner.late }) {
            reportReactivation(request, late.credential, late.owner, ledger: ledger, log: &log)
            return
        }
        var lineages: [String] = []
        for entry in owned where !lineages.contains(entry.owner.lineage) { lineages.append(entry.owner.lineage) }
        if owned.isEmpty ? !request.cookies.isEmpty : ledger.order.count >= 2 { log.exercise(.accountIsolation) }
        if log.isEnabled(.accountIsolation) {
            if lineages.count >= 2 {
                reportMixedLineages(request, owned, lineages: lineages, ledger: ledger, log: &log)
                return
            }
            if owned.isEmpty, let name = Self.cookieWithTwoValues(request) {
                log.record(
                    .accountIsolation,
                    "\(request.label) was sent at seq \(request.seq) with two different values of cookie '\(name)', the cookies of two logins",
                    details: ["request_seq": String(request.seq), "cookie": name],
                    witnesses: [log.request(request, lineage: nil, note: "two '\(name)' cookies", marker: .offending)])
                return
            }
        }
        guard log.isEnabled(.logoutBoundary), !request.isCleanup else { return }
        for entry in owned {
            guard let boundary = ledger.record(entry.owner.lineage)?.logout, boundary.seq < request.seq else {
                continue
            }
            reportAfterLogout(request, entry.credential, entry.owner, boundary, ledger: ledger, log: &log)
            return
        }
    }

    private func reportReactivation(
        _ request: ClientRequest, _ credential: PresentedCredential, _ owner: LineageLedger.Ownership,
        ledger: LineageLedger, log: inout ViolationLog
    ) {
        let lineage = owner.lineage
        let source =
            switch owner.issuingEvent {
            case "lineage.refresh": "a refresh response"
            case "lineage.login": "a login response"
            default: "a response"
            }
        var witnesses = [
            log.event(
                seq: owner.issuedSeq, mono: owner.issuedMono, kind: owner.issuingEvent, lineage: lineage,
                note: "late credential issued"),
            log.request(request, lineage: lineage, note: "late credential used", marker: .offending),
        ]
        var boundaryText = ""
        if let record = ledger.record(lineage) {
            witnesses.append(origin(record, log: log))
            if let boundary = record.logout {
                witnesses.append(log.boundary(boundary, lineage: lineage))
                boundaryText = ", after \(lineage)'s logout at seq \(boundary.seq)"
            }
        }
        log.record(
            .noReactivation,
            "\(request.label) was sent at seq \(request.seq) with \(credential.phrase) of lineage \(lineage) that \(source) delivered at seq \(owner.issuedSeq)\(boundaryText)",
            lineage: lineage,
            details: [
                "request_seq": String(request.seq), "issued_seq": String(owner.issuedSeq),
                "credential": credential.kind,
            ],
            witnesses: witnesses)
    }

    private func reportMixedLineages(
        _ request: ClientRequest, _ owned: [(credential: PresentedCredential, owner: LineageLedger.Ownership)],
        lineages: [String], ledger: LineageLedger, log: inout ViolationLog
    ) {
        var parts: [String] = []
        for lineage in lineages {
            let phrases = owned.filter { $0.owner.lineage == lineage }.map(\.credential.phrase)
            parts.append(phrases.joined(separator: " and ") + " of lineage \(lineage)")
        }
        let claimed = ledger.lineage(of: request)
        var witnesses = [
            log.request(
                request, lineage: claimed, note: "credentials of \(lineages.joined(separator: " and "))",
                marker: .offending)
        ]
        for lineage in lineages {
            guard let record = ledger.record(lineage) else { continue }
            witnesses.append(origin(record, log: log))
            if let boundary = record.logout, boundary.seq < request.seq {
                witnesses.append(log.boundary(boundary, lineage: lineage))
            }
        }
        let list = parts.count == 2 ? parts.joined(separator: " and ") : parts.joined(separator: ", ")
        log.record(
            .accountIsolation, "\(request.label) was sent at seq \(request.seq) with \(list)",
            lineage: lineages.first,
            details: ["request_seq": String(request.seq), "lineages": lineages.joined(separator: ",")],
            witnesses: witnesses)
    }

    private func reportAfterLogout(
        _ request: ClientRequest, _ credential: PresentedCredential, _ owner: LineageLedger.Ownership,
        _ boundary: LineageLedger.Boundary, ledger: LineageLedger, log: inout ViolationLog
    ) {
        let lineage = owner.lineage
        let distance = request.seq - boundary.seq
        let after = "\(distance) event\(distance == 1 ? "" : "s") after \(lineage)'s logout at seq \(boundary.seq)"
        let summary =
            request.role == "refresh"
            ? "A refresh of lineage \(lineage) started after its logout: \(request.label) was sent at seq \(request.seq) with \(credential.phrase) of \(lineage), \(after)"
            : "\(request.label) was sent at seq \(request.seq) with \(credential.phrase) of lineage \(lineage), \(after)"
        var witnesses = [
            log.boundary(boundary, lineage: lineage),
            log.request(
                request, lineage: lineage,
                note: request.role == "refresh" ? "refresh after logout" : "sent after logout",
                marker: .offending),
        ]
        if let record = ledger.record(lineage) { witnesses.append(origin(record, log: log)) }
        log.record(
            .logoutBoundary, summary, lineage: lineage,
            details: [
                "request_seq": String(request.seq), "logout_seq": String(boundary.seq), "credential": credential.kind,
            ],
            witnesses: witnesses)
    }

    /// The event that started a lineage, as a witness.
    private func origin(_ record: LineageLedger.Record, log: ViolationLog) -> ViolationLog.Witness {
        let note =
            switch record.originEvent {
            case "lineage.login": "login"
            case "lineage.unknown-refresh": "first seen (refresh)"
            default: "first seen"
            }
        return log.event(
            seq: record.originSeq, mono: record.originMono, kind: record.originEvent, lineage: record.id, note: note)
    }

    /// A cookie name the request carries twice with different values.
    static func cookieWithTwoValues(_ request: ClientRequest) -> String? {
        guard request.cookies.count >= 2 else { return nil }
        var seen: [String: String] = [:]
        for cookie in request.cookies {
            if let value = seen[cookie.name], value != cookie.value { return cookie.name }
            seen[cookie.name] = cookie.value
        }
        return nil
    }
}
