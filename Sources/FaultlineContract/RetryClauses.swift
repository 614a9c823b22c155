import FaultlineTrace

/// `bounded-retry` and `replay-safe-retry`, judged when a business request's flow ends.
///
/// Attempts are grouped by method and URL (query included, as recorded). Within a group, an
/// attempt's *predecessor* is the attempt whose flow ended last before it arrived: an attempt
/// that overlaps another is never its retry.
///
/// **Same operation.** With a retry identity header (the contract's, `Idempotency-Key` by
/// default) on both, attempts are one operation when the values are equal; when only one of
/// them carries it, they are two operations (a client names an operation once, for all its
/// attempts). Without the header on either, bodies decide (``AttemptBody``): equal fingerprints
/// (from `request.forwarded`), or, when a side was never forwarded (a rule answered it), equal
/// announced lengths, or an unknown length: unknown counts as equal (equal by URL).
///
/// Each attempt keeps the lineage it belonged to when it ended, and witnesses show it under that
/// one: an attempt made before a login is never shown under the lineage that login started.
///
/// **bounded-retry.** An attempt whose predecessor is the same operation and was answered 401
/// continues that predecessor's chain of 401s. An attempt that follows two chained 401s is a
/// second retry: the loop the clause forbids. Reported once per chain. Polling one URL again
/// after two 401s looks the same; give distinct operations distinct identity headers.
///
/// **replay-safe-retry.** For a non-idempotent method (anything but GET, HEAD, OPTIONS, TRACE,
/// PUT and DELETE, RFC 9110 §9.2.2), consider the next attempt after one that had a body and
/// failed in a way clients retry (401, 408, 429, 502, 503, 504, or no complete answer). It is a
/// retry only when the evidence says so: the same identity header, or the same body, or a body
/// that lost what the attempt had (empty, or, in a capture, a proper prefix of it). A different
/// body with no key is a new operation and is not judged. A retry breaks the clause when it lost
/// what made it safe to send again (``RetryLapse``): its body (empty or cut short, with no key
/// to stand for the operation), or the key the attempt carried (left out or changed). A retry
/// that keeps the attempt's key, or adds one, is safe whatever its body.
struct RetryClauses {
    /// One attempt as a witness shows it: the request, how it ended, and its own lineage.
    private struct Member {
        let request: ClientRequest
        let outcome: TracedOutcome
        /// The lineage the attempt belonged to when it ended (nil before any login, say).
        let lineage: String?
    }

    private struct Attempt {
        let request: ClientRequest
        let outcome: TracedOutcome
        let lineage: String?
        let body: AttemptBody
        /// 401s in a row of this operation ending with this attempt (0 when it was not a 401).
        let chain: Int
        /// The attempts of that chain, oldest first (at most 3).
        let chainMembers: [Member]
        var chainReported: Bool
    }

    private struct Group {
        var attempts: [Attempt] = []
        var lastEndSeq: UInt64 = 0
    }

    static let attemptsPerGroup = 8
    /// Past this many groups, groups idle for `idleSeqs` events are dropped: a retry follows its
    /// attempt closely, and distinct URLs must not grow memory without bound.
    static let groupLimit = 50_000
    static let idleSeqs: UInt64 = 200_000

    let identityHeader: String?
    private var groups: [String: Group] = [:]
    private var endsSincePrune = 0

    init(identityHeader: String?) { self.identityHeader = identityHeader }

    mutating func flowEnded(
        _ request: ClientRequest, _ outcome: TracedOutcome, ledger: LineageLedger, log: inout ViolationLog
    ) {
        guard request.isBusinessLike else { return }
        let key = request.method + " " + request.url
        var group = groups[key, default: Group()]
        let predecessor = group.attempts.last { $0.outcome.endSeq < request.seq }
        let body = AttemptBody(
            length: outcome.body?.length ?? request.announcedBodyLength, fingerprint: outcome.body?.fingerprint,
            captured: outcome.captured)
        let lineage = ledger.lineage(of: request)
        if outcome.ending == .answered && outcome.status == 401 { log.exercise(.boundedRetry) }
        if !Self.idempotentMethods.contains(request.method), Self.isRetryable(outcome), (body.length ?? 0) > 0 {
            log.exercise(.replaySafeRetry)
        }

        var chain = 0
        var members: [Member] = []
        var reported = false
        if let predecessor, predecessor.chain > 0, sameOperation(predecessor, request, body: body) {
            members = predecessor.chainMembers
            reported = predecessor.chainReported
            if predecessor.chain >= 2 && !reported {
                reportLoop(Member(request: request, outcome: outcome, lineage: lineage), chain: members, log: &log)
                reported = true
            }
            if outcome.ending == .answered && outcome.status == 401 { chain = predecessor.chain + 1 }
        } else if outcome.ending == .answered && outcome.status == 401 {
            chain = 1
        }
        if chain > 0 {
            members.append(Member(request: request, outcome: outcome, lineage: lineage))
            if members.count > 3 { members.removeFirst() }
        } else {
            members = []
        }
        if let predecessor { checkReplay(predecessor, request, outcome, body: body, lineage: lineage, log: &log) }
        group.attempts.append(
            Attempt(
                request: request, outcome: outcome, lineage: lineage, body: body, chain: chain, chainMembers: members,
                chainReported: reported && chain > 0))
        if group.attempts.count > Self.attemptsPerGroup { group.attempts.removeFirst() }
        group.lastEndSeq = outcome.endSeq
        groups[key] = group
        prune(now: outcome.endSeq)
    }

    private func sameOperation(_ earlier: Attempt, _ request: ClientRequest, body: AttemptBody) -> Bool {
        if earlier.request.identityKey != nil || request.identityKey != nil {
            return earlier.request.identityKey == request.identityKey
        }
        return body.mayBeSameBody(as: earlier.body)
    }

    private func reportLoop(_ offending: Member, chain: [Member], log: inout ViolationLog) {
        let request = offending.request
        var witnesses: [ViolationLog.Witness] = []
        for member in chain {
            witnesses.append(
                log.request(member.request, lineage: member.lineage, note: "attempt", status: member.outcome.status))
            witnesses.append(log.answer(member.request, member.outcome, lineage: member.lineage, note: "401"))
        }
        witnesses.append(
            log.request(
                request, lineage: offending.lineage, note: "retried again", marker: .offending,
                status: offending.outcome.status))
        let seqs = chain.map { "seq \($0.outcome.endSeq)" }.joined(separator: " and ")
        log.record(
            .boundedRetry,
            "\(request.label) was sent again at seq \(request.seq) after \(chain.count) 401s in a row (\(seqs)): a request may be refreshed and retried only once",
            lineage: offending.lineage,
            details: ["request_seq": String(request.seq), "rejections": String(chain.count)],
            witnesses: witnesses)
    }

    private func checkReplay(
        _ original: Attempt, _ retry: ClientRequest, _ outcome: TracedOutcome, body: AttemptBody, lineage: String?,
        log: inout ViolationLog
    ) {
        guard !Self.idempotentMethods.contains(retry.method), Self.isRetryable(original.outcome),
            let originalLength = original.body.length, originalLength > 0,
            let lapse = RetryLapse(
                originalKey: original.request.identityKey, retryKey: retry.identityKey,
                body: body.relation(to: original.body))
        else { return }
        let keyName = identityHeader ?? "idempotency key"
        let keyed = original.request.identityKey.map { _ in " and \(keyName)" } ?? ""
        let answer = original.outcome.status.map { "got \($0)" } ?? "got no complete answer"
        log.record(
            .replaySafeRetry,
            "\(retry.label) was retried at seq \(retry.seq) \(lapse.sentence(retryLength: body.length, originalLength: originalLength, identityHeader: identityHeader)), after the attempt at seq \(original.request.seq) with \(originalLength) bytes\(keyed) \(answer)",
            lineage: lineage,
            details: [
                "request_seq": String(retry.seq), "original_seq": String(original.request.seq),
                "original_length": String(originalLength), "length": body.length.map(String.init) ?? "",
                "lapse": lapse.code,
            ],
            witnesses: [
                log.request(
                    original.request, lineage: original.lineage, note: "original attempt",
                    status: original.outcome.status),
                log.answer(original.request, original.outcome, lineage: original.lineage, note: "failed"),
                log.request(
                    retry, lineage: lineage, note: "retry " + lapse.note(identityHeader: identityHeader),
                    marker: .offending, status: outcome.status),
            ])
    }

    /// RFC 9110 §9.2.2.
    static let idempotentMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]

    /// Failures a client answers with a retry.
    static func isRetryable(_ outcome: TracedOutcome) -> Bool {
        guard outcome.ending == .answered, let status = outcome.status else { return outcome.ending != .unfinished }
        return [401, 408, 429, 502, 503, 504].contains(status)
    }

    private mutating func prune(now: UInt64) {
        endsSincePrune += 1
        guard endsSincePrune >= 10_000, groups.count > Self.groupLimit else { return }
        endsSincePrune = 0
        let cutoff = now > Self.idleSeqs ? now - Self.idleSeqs : 0
        groups = groups.filter { $0.value.lastEndSeq >= cutoff }
    }
}
