/// `single-flight-refresh` and `no-stale-refresh`, judged when a refresh request arrives.
///
/// **single-flight-refresh.** A refresh runs from its request's arrival to the end of its flow
/// (answer delivered, client gone, or trace end). A refresh arriving while another refresh of the
/// same lineage runs breaks the clause. So does presenting a refresh credential that an earlier
/// refresh already presented *and forwarded upstream* (a rotating server has then seen it; a
/// refresh answered by the proxy alone, or never sent, does not count). Refreshes whose lineage is
/// unknown are grouped by their refresh credential.
///
/// **no-stale-refresh.** Each lineage's *epoch* starts when the refresh that issued its current
/// access token (else session cookie) was sent, or at the login. A refresh is justified when the
/// client was given a 401 for the lineage's current token before the refresh started. It is
/// stale when it is not justified and the lineage was given a 401 during the epoch for a token
/// that is no longer current: the late 401 for an already replaced token that the articles warn
/// about. A refresh with no 401 in its epoch at all (a proactive refresh before expiry) is not
/// judged. A refresh after the lineage's logout is left to `logout-boundary`, and one that already
/// broke single-flight is not judged again.
struct RefreshClauses {
    private struct Attempt {
        let request: ClientRequest
        let lineage: String?
        let refreshFingerprint: String?
        var group: String? { lineage ?? refreshFingerprint.map { "refresh " + $0 } }
    }

    private struct Rejection {
        let fingerprint: String
        let request: ClientRequest
        let outcome: TracedOutcome
    }

    private struct Epoch {
        /// `seq` from which 401s count against the current token.
        var startSeq: UInt64 = 0
        /// The refresh that issued the current token and when its result was traced.
        var refresh: (request: ClientRequest, completedSeq: UInt64, completedMono: UInt64)?
        /// 401s the lineage was given since `startSeq` (at most `maximumRejections`, newest last).
        var rejections: [Rejection] = []
    }

    static let maximumRejections = 64
    static let maximumRecentlyEnded = 256

    /// Running refreshes by flow, and by group.
    private var running: [UInt64: Attempt] = [:]
    private var runningByGroup: [String: [UInt64]] = [:]
    /// Refresh credential → the first refresh that presented it and was forwarded.
    private var presented: [String: Attempt] = [:]
    /// Refreshes that ended recently, for the `lineage.refresh` that follows their answer.
    private var recentlyEnded: [UInt64: Attempt] = [:]
    private var recentlyEndedOrder: [UInt64] = []
    private var epochs: [String: Epoch] = [:]

    mutating func requestArrived(_ request: ClientRequest, ledger: LineageLedger, log: inout ViolationLog) {
        guard request.role == "refresh" else { return }
        log.exercise(.singleFlightRefresh, .noStaleRefresh)
        let attempt = Attempt(
            request: request, lineage: ledger.lineage(of: request),
            refreshFingerprint: request.credential(ofKind: "refresh")?.fingerprint)
        // One refresh, one clause: one that overlaps another or presents a refresh token already
        // presented is a single-flight failure, and is not judged again as stale.
        if !checkOverlap(attempt, log: &log), !checkReuse(attempt, log: &log) {
            checkStale(attempt, ledger: ledger, log: &log)
        }
        running[request.flow] = attempt
        if let group = attempt.group { runningByGroup[group, default: []].append(request.flow) }
    }

    mutating func requestForwarded(flow: UInt64) {
        guard let attempt = running[flow], let fingerprint = attempt.refreshFingerprint, presented[fingerprint] == nil
        else { return }
        presented[fingerprint] = attempt
    }

    mutating func flowEnded(_ request: ClientRequest, _ outcome: TracedOutcome, ledger: LineageLedger) {
        if let attempt = running.removeValue(forKey: request.flow) {
            if let group = attempt.group {
                runningByGroup[group]?.removeAll { $0 == request.flow }
                if runningByGroup[group]?.isEmpty == true { runningByGroup[group] = nil }
            }
            recentlyEnded[request.flow] = attempt
            recentlyEndedOrder.append(request.flow)
            if recentlyEndedOrder.count > Self.maximumRecentlyEnded {
                recentlyEnded[recentlyEndedOrder.removeFirst()] = nil
            }
            return
        }
        guard request.isBusinessLike, outcome.ending == .answered, outcome.status == 401,
            let primary = request.primaryCredential, let lineage = ledger.owner(of: primary.fingerprint)?.lineage
        else { return }
        var epoch = epochs[lineage, default: Epoch()]
        epoch.rejections.append(Rejection(fingerprint: primary.fingerprint, request: request, outcome: outcome))
        if epoch.rejections.count > Self.maximumRejections { epoch.rejections.removeFirst() }
        epochs[lineage] = epoch
    }

    /// A lineage step that issues a new current token (access token, else session cookie) starts
    /// a new epoch. Call after the ledger applied the step.
    mutating func lineageStep(_ step: LineageLedger.Step, ledger: LineageLedger) {
        let primaryKind = ledger.record(step.lineage)?.current["access"] != nil ? "access" : "session"
        guard step.issued.contains(where: { $0.kind == primaryKind }) else { return }
        var epoch = epochs[step.lineage, default: Epoch()]
        if let flow = step.flow, let attempt = recentlyEnded[flow] ?? running[flow] {
            epoch.startSeq = attempt.request.seq
            epoch.refresh = (attempt.request, step.seq, step.mono)
        } else {
            epoch.startSeq = step.seq
            epoch.refresh = nil
        }
        epoch.rejections.removeAll { $0.outcome.endSeq < epoch.startSeq }
        epochs[step.lineage] = epoch
    }

    /// Returns true when a violation was recorded.
    private func checkOverlap(_ attempt: Attempt, log: inout ViolationLog) -> Bool {
        guard let group = attempt.group, let flows = runningByGroup[group], !flows.isEmpty else { return false }
        let others = flows.compactMap { running[$0] }
        guard let first = others.first else { return false }
        let lineageText = attempt.lineage.map { "lineage \($0)" } ?? "the same refresh token"
        let sameToken =
            attempt.refreshFingerprint != nil && others.contains { $0.refreshFingerprint == attempt.refreshFingerprint }
        var witnesses = others.map { log.request($0.request, lineage: $0.lineage, note: "refresh started") }
        witnesses.append(
            log.request(attempt.request, lineage: attempt.lineage, note: "overlapping refresh", marker: .offending))
        log.record(
            .singleFlightRefresh,
            "\(attempt.request.label) started a second refresh of \(lineageText) at seq \(attempt.request.seq) while the refresh sent at seq \(first.request.seq) was still running\(sameToken ? ", presenting the same refresh token" : "")",
            lineage: attempt.lineage,
            details: ["request_seq": String(attempt.request.seq), "running_seq": String(first.request.seq)],
            witnesses: witnesses)
        return true
    }

    /// True when the refresh presents a refresh token an earlier forwarded refresh presented.
    private func checkReuse(_ attempt: Attempt, log: inout ViolationLog) -> Bool {
        guard let fingerprint = attempt.refreshFingerprint, let first = presented[fingerprint] else { return false }
        let lineageText = attempt.lineage.map { " of lineage \($0)" } ?? ""
        log.record(
            .singleFlightRefresh,
            "\(attempt.request.label) at seq \(attempt.request.seq) presented the refresh token\(lineageText) that the refresh sent at seq \(first.request.seq) had already presented (a rotating server revokes the family on reuse)",
            lineage: attempt.lineage,
            details: ["request_seq": String(attempt.request.seq), "first_seq": String(first.request.seq)],
            witnesses: [
                log.request(first.request, lineage: first.lineage, note: "refresh token presented"),
                log.request(
                    attempt.request, lineage: attempt.lineage, note: "same refresh token again", marker: .offending),
            ])
        return true
    }

    private func checkStale(_ attempt: Attempt, ledger: LineageLedger, log: inout ViolationLog) {
        guard let lineage = attempt.lineage, let record = ledger.record(lineage), record.logout == nil,
            let epoch = epochs[lineage], let current = record.current["access"] ?? record.current["session"]
        else { return }
        let startSeq = attempt.request.seq
        let rejections = epoch.rejections.filter { $0.outcome.endSeq < startSeq }
        guard !rejections.contains(where: { $0.fingerprint == current }),
            let late = rejections.last(where: { $0.fingerprint != current })
        else { return }
        var witnesses = [
            log.request(
                late.request, lineage: lineage, note: "request with a replaced token", status: late.outcome.status),
            log.answer(late.request, late.outcome, lineage: lineage, note: "401 for the replaced token"),
            log.request(attempt.request, lineage: lineage, note: "stale refresh", marker: .offending),
        ]
        var replacedText = "a token that was no longer current"
        if let refresh = epoch.refresh {
            witnesses.append(log.request(refresh.request, lineage: lineage, note: "refresh started"))
            witnesses.append(
                log.event(
                    seq: refresh.completedSeq, mono: refresh.completedMono, kind: "lineage.refresh", lineage: lineage,
                    note: "token replaced"))
            replacedText =
                "a token that the refresh sent at seq \(refresh.request.seq) had already replaced (at seq \(refresh.completedSeq))"
        }
        log.record(
            .noStaleRefresh,
            "\(attempt.request.label) started a refresh of lineage \(lineage) at seq \(startSeq) after the 401 at seq \(late.outcome.endSeq) for \(replacedText)",
            lineage: lineage,
            details: ["request_seq": String(startSeq), "rejection_seq": String(late.outcome.endSeq)],
            witnesses: witnesses)
    }
}
