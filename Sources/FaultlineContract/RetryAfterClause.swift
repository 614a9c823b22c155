/// `retry-after-respected`: a request answered 429 (RFC 6585 §4) or 503 (RFC 9110 §15.6.4) with
/// a `Retry-After` (RFC 9110 §10.2.3) is not sent again before that time has passed, counted from
/// when the answer was delivered. Microsoft's Dev Proxy checks the same (its RetryAfterPlugin).
///
/// "Sent again" is the same method and URL (query included, as the retry clauses group them),
/// arriving after the answer was delivered: a request already on its way when the answer came
/// is no retry. The wait is per URL, not per host: a 429 from one endpoint says nothing certain
/// about the others, and the clause reports only what it can show. Each answer is reported once,
/// at its first early request. The proxy's own error pages (a 503 with `Retry-After: 1`, from
/// Faultline rather than the server) carry no `retry_after` in the trace and are not judged.
struct RetryAfterClause {
    /// A 429 or 503 that asked for a wait, and whether an early request was reported.
    private struct Throttle {
        let request: ClientRequest
        let outcome: TracedOutcome
        let retryAfter: RetryAfter
        let lineage: String?
        var reported = false

        var notBefore: UInt64 { outcome.endMono + retryAfter.nanoseconds }
    }

    /// Past this many URLs with a wait, waits over for ``idleNanoseconds`` are dropped: distinct
    /// URLs must not grow memory without bound.
    static let throttleLimit = 10_000
    static let idleNanoseconds: UInt64 = 60_000_000_000

    private var throttles: [String: Throttle] = [:]

    mutating func flowEnded(
        _ request: ClientRequest, _ outcome: TracedOutcome, ledger: LineageLedger, log: inout ViolationLog
    ) {
        let key = request.method + " " + request.url
        if var throttle = throttles[key], !throttle.reported, throttle.outcome.endSeq < request.seq,
            request.mono < throttle.notBefore
        {
            report(throttle, early: request, outcome, lineage: ledger.lineage(of: request), log: &log)
            throttle.reported = true
            throttles[key] = throttle
        }
        guard outcome.ending == .answered, outcome.status == 429 || outcome.status == 503,
            let retryAfter = outcome.retryAfter
        else { return }
        log.exercise(.retryAfterRespected)
        throttles[key] = Throttle(
            request: request, outcome: outcome, retryAfter: retryAfter, lineage: ledger.lineage(of: request))
        if throttles.count > Self.throttleLimit {
            let now = outcome.endMono
            throttles = throttles.filter { $0.value.notBefore + Self.idleNanoseconds > now }
        }
    }

    private func report(
        _ throttle: Throttle, early request: ClientRequest, _ outcome: TracedOutcome, lineage: String?,
        log: inout ViolationLog
    ) {
        let status = throttle.outcome.status ?? 0
        let waited = request.mono > throttle.outcome.endMono ? request.mono - throttle.outcome.endMono : 0
        let waitedText = TimelineTimeScale.duration(waited)
        log.record(
            .retryAfterRespected,
            "\(request.label) was sent again at seq \(request.seq), \(waitedText) after its \(status) (seq \(throttle.outcome.endSeq)) said Retry-After: \(throttle.retryAfter.text) (\(throttle.retryAfter.duration))",
            lineage: lineage,
            details: [
                "request_seq": String(request.seq), "answer_seq": String(throttle.outcome.endSeq),
                "retry_after": throttle.retryAfter.text,
                "retry_after_ms": String(throttle.retryAfter.nanoseconds / 1_000_000),
                "waited_ms": String(waited / 1_000_000),
            ],
            witnesses: [
                log.request(throttle.request, lineage: throttle.lineage, note: "attempt", status: status),
                log.answer(
                    throttle.request, throttle.outcome, lineage: throttle.lineage,
                    note: "\(status), Retry-After \(throttle.retryAfter.duration)", marker: .boundary),
                log.request(
                    request, lineage: lineage, note: "sent again after \(waitedText)", marker: .offending,
                    status: outcome.status),
            ])
    }
}
