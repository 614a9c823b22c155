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
/// attempts). Without the header on either, bodies decide: equal fingerprints (from
/// `request.forwarded`), or, when a side was never forwarded (a rule answered it), equal
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
/// PUT and DELETE, RFC 9110 §9.2.2), the next attempt after one that had a body and failed in a
/// way clients retry (401, 408, 429, 502, 503, 504, or no complete answer) is its retry. The retry
/// breaks the clause when its body is known to differ (another length, or another fingerprint)
/// and it carries no identity header.
struct RetryClauses {
    /// One attempt as a witness shows it: the request, how it ended, and its own lineage.
    private struct Member {
        let request: ClientRequest
        let outcome: FlowOutcome
        /// The lineage the attempt belonged to when it ended (nil before any login, say).
        let lineage: String?
    }

    private struct Attempt {
        let request: ClientRequest
        let outcome: FlowOutcome
        let lineage: String?
        let bodyLength: Int64?
        let bodyFingerprint: String?
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
        _ request: ClientRequest, _ outcome: FlowOutcome, ledger: LineageLedger, log: inout ViolationLog
    ) {
        guard request.isBusinessLike else { return }
        let key = request.method + " " + request.url
        var group = groups[key, default: Group()]
        let predecessor = group.attempts.last { $0.outcome.endSeq < request.seq }
        let bodyLength = outcome.body?.length ?? request.announcedBodyLength
        let bodyFingerprint = outcome.body?.fingerprint
        let lineage = ledger.lineage(of: request)

        var chain = 0
        var members: [Member] = []
        var reported = false
        if let predecessor, predecessor.chain > 0,
            sameOperation(predecessor, request, bodyLength: bodyLength, bodyFingerprint: bodyFingerprint)
        {
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
        if let predecessor {
            checkReplay(
                predecessor, request, outcome, bodyLength: bodyLength, bodyFingerprint: bodyFingerprint,
                lineage: lineage, log: &log)
        }
        group.attempts.append(
            Attempt(
                request: request, outcome: outcome, lineage: lineage, bodyLength: bodyLength,
                bodyFingerprint: bodyFingerprint, chain: chain, chainMembers: members,
                chainReported: reported && chain > 0))
        if group.attempts.count > Self.attemptsPerGroup { group.attempts.removeFirst() }
        group.lastEndSeq = outcome.endSeq
        groups[key] = group
        prune(now: outcome.endSeq)
    }

    private func sameOperation(
        _ earlier: Attempt, _ request: ClientRequest, bodyLength: Int64?, bodyFingerprint: String?
    ) -> Bool {
        if earlier.request.identityKey != nil || request.identityKey != nil {
            return earlier.request.identityKey == request.identityKey
        }
        if let first = earlier.bodyFingerprint, let second = bodyFingerprint { return first == second }
        if let first = earlier.bodyLength, let second = bodyLength { return first == second }
        return true
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
        _ original: Attempt, _ retry: ClientRequest, _ outcome: FlowOutcome, bodyLength: Int64?,
        bodyFingerprint: String?, lineage: String?, log: inout ViolationLog
    ) {
        guard !Self.idempotentMethods.contains(retry.method), Self.isRetryable(original.outcome),
            retry.identityKey == nil
        else { return }
        let originalHadBody = (original.bodyLength ?? 0) > 0
        guard originalHadBody else { return }
        let lengthDiffers = bodyLength.map { length in original.bodyLength.map { $0 != length } ?? false } ?? false
        let fingerprintDiffers =
            bodyFingerprint.map { fingerprint in original.bodyFingerprint.map { $0 != fingerprint } ?? false } ?? false
        guard lengthDiffers || fingerprintDiffers else { return }
        let originalLength = original.bodyLength.map { "\($0) bytes" } ?? "a body"
        let what =
            bodyLength == 0
            ? "an empty body"
            : lengthDiffers
                ? "a \(bodyLength.map(String.init) ?? "?")-byte body" : "a different body of the same length"
        let answer = original.outcome.status.map { "got \($0)" } ?? "got no complete answer"
        let header = identityHeader.map { "no \($0) header" } ?? "no idempotency key"
        log.record(
            .replaySafeRetry,
            "\(retry.label) was retried at seq \(retry.seq) with \(what) and \(header), after the attempt at seq \(original.request.seq) with \(originalLength) \(answer)",
            lineage: lineage,
            details: [
                "request_seq": String(retry.seq), "original_seq": String(original.request.seq),
                "original_length": original.bodyLength.map(String.init) ?? "",
                "length": bodyLength.map(String.init) ?? "",
            ],
            witnesses: [
                log.request(
                    original.request, lineage: original.lineage, note: "original attempt",
                    status: original.outcome.status),
                log.answer(original.request, original.outcome, lineage: original.lineage, note: "failed"),
                log.request(
                    retry, lineage: lineage, note: "retry without its body", marker: .offending, status: outcome.status),
            ])
    }

    /// RFC 9110 §9.2.2.
    static let idempotentMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]

    /// Failures a client answers with a retry.
    static func isRetryable(_ outcome: FlowOutcome) -> Bool {
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
