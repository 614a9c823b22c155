import FaultlineContract
import Testing

/// retry-after-respected: a request sent again before its 429's or 503's `Retry-After` is up.
@Suite struct RetryAfterClauseTests {
    /// GET /v1/count answered `status` with `retryAfter`, then, `waitMilliseconds` later, asked again.
    static func story(status: Int = 429, retryAfter: String?, waitMilliseconds: UInt64, path: String = "/v1/count")
        -> (trace: TraceBuilder, answer: UInt64, again: UInt64)
    {
        var trace = TraceBuilder()
        let first = trace.request("GET", "/v1/count")
        trace.forward(first.flow)
        let answer = trace.deliver(first.flow, status, retryAfter: retryAfter)
        trace.elapse(milliseconds: waitMilliseconds)
        let again = trace.exchange("GET", path, status: 200).seq
        return (trace, answer, again)
    }

    @Test func aRequestSentAgainBeforeItsRetryAfterBreaksTheClause() throws {
        let (trace, answer, again) = Self.story(retryAfter: "2", waitMilliseconds: 300)
        let report = try trace.check()
        #expect(report.brokenClauses == [.retryAfterRespected], "\(report.violations)")
        let violation = try #require(report.violations.first)
        #expect(
            violation.summary
                == "GET /v1/count was sent again at seq \(again), 301 ms after its 429 (seq \(answer)) said Retry-After: 2 (2.0 s)"
        )
        #expect(violation.details["retry_after_ms"] == "2000")
        #expect(violation.details["waited_ms"] == "301")
        #expect(violation.timeline.map(\.marker) == [.context, .boundary, .offending])
        #expect(violation.timeline.map(\.seq).last == again)
    }

    @Test func aRequestThatWaitedPasses() throws {
        let report = try Self.story(retryAfter: "2", waitMilliseconds: 2_000).trace.check()
        #expect(report.passed, "\(report.violations)")
        #expect(report.clausesChecked.contains(.retryAfterRespected))
        #expect(!report.clausesUnexercised.contains { $0.clause == .retryAfterRespected })
    }

    @Test(arguments: [429, 503]) func bothStatusesAreJudged(status: Int) throws {
        let report = try Self.story(status: status, retryAfter: "1", waitMilliseconds: 0).trace.check()
        #expect(report.brokenClauses == [.retryAfterRespected])
    }

    /// An HTTP-date counts from the wall clock at delivery (the builder's is 2026-01-01T00:00:00Z).
    @Test func anHTTPDateIsMeasuredFromDelivery() throws {
        let date = "Thu, 01 Jan 2026 00:00:02 GMT"
        let early = try Self.story(retryAfter: date, waitMilliseconds: 1_000).trace.check()
        #expect(early.brokenClauses == [.retryAfterRespected])
        #expect(early.violations.first?.details["retry_after_ms"] == "2000")
        #expect(try Self.story(retryAfter: date, waitMilliseconds: 2_000).trace.check().passed)
        // A date already past asks for no wait.
        #expect(try Self.story(retryAfter: "Wed, 31 Dec 2025 23:59:00 GMT", waitMilliseconds: 0).trace.check().passed)
    }

    @Test func withoutRetryAfterOrForAnotherURLThereIsNothingToJudge() throws {
        let bare = try Self.story(retryAfter: nil, waitMilliseconds: 0).trace.check()
        #expect(bare.passed)
        #expect(bare.clausesUnexercised.contains { $0.clause == .retryAfterRespected })
        #expect(try Self.story(retryAfter: "junk", waitMilliseconds: 0).trace.check().passed)
        #expect(try Self.story(retryAfter: "5", waitMilliseconds: 0, path: "/v1/messages").trace.check().passed)
        // A 500 is not an instruction to wait, whatever it carries.
        #expect(try Self.story(status: 500, retryAfter: "5", waitMilliseconds: 0).trace.check().passed)
    }

    /// A request already on its way when the 429 was delivered is no retry of it.
    @Test func aRequestInFlightWhenTheAnswerCameIsNoRetry() throws {
        var trace = TraceBuilder()
        let first = trace.request("GET", "/v1/count")
        let second = trace.request("GET", "/v1/count")
        trace.forward(first.flow)
        trace.deliver(first.flow, 429, retryAfter: "10")
        trace.forward(second.flow)
        trace.deliver(second.flow, 200)
        #expect(try trace.check().passed)
    }

    /// Three early requests after one answer: one violation, at the first.
    @Test func eachAnswerIsReportedOnce() throws {
        var (trace, _, again) = Self.story(retryAfter: "30", waitMilliseconds: 0)
        trace.exchange("GET", "/v1/count", status: 200)
        trace.exchange("GET", "/v1/count", status: 200)
        let report = try trace.check()
        #expect(report.violations.count == 1)
        #expect(report.violations.first?.details["request_seq"] == String(again))
    }

    /// A contract can turn the clause off like any other.
    @Test func aContractCanTurnItOff() throws {
        var contract = Contract.default
        contract.enabledClauses.remove(.retryAfterRespected)
        let report = try Self.story(retryAfter: "2", waitMilliseconds: 0).trace.check(contract)
        #expect(report.passed)
        #expect(report.clausesDisabled.contains(.retryAfterRespected))
    }
}
