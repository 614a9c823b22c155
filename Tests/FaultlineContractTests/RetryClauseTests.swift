import FaultlineContract
import Testing

/// bounded-retry and replay-safe-retry.
@Suite struct RetryClauseTests {
    /// 401 → refresh → retry answered `retryStatus`; then, when `thirdAttempt`, once more.
    static func retryStory(retryStatus: Int, thirdAttempt: Bool) -> (TraceBuilder, third: UInt64?) {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a1"])
        let refresh = trace.startRefresh("L1", refresh: "r1")
        trace.finishRefresh(
            refresh.flow, lineage: "L1", presented: "r1", replacing: ["access:a1"], access: "a2", refresh: "r2")
        trace.exchange("GET", "/v1/messages", status: retryStatus, lineage: "L1", credentials: ["access:a2"])
        guard thirdAttempt else { return (trace, nil) }
        let third = trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a2"]).seq
        return (trace, third)
    }

    @Test func oneRetryThatSucceedsPasses() throws {
        #expect(try Self.retryStory(retryStatus: 200, thirdAttempt: false).0.check().passed)
    }

    @Test func secondRejectionSurfacesPasses() throws {
        #expect(try Self.retryStory(retryStatus: 401, thirdAttempt: false).0.check().passed)
    }

    @Test func thirdAttemptAfterTwoRejectionsFails() throws {
        let (trace, third) = Self.retryStory(retryStatus: 401, thirdAttempt: true)
        let report = try trace.check()
        #expect(report.brokenClauses == [.boundedRetry], "\(report.violations)")
        let violation = try #require(report.violations.first)
        let thirdSeq = try #require(third)
        #expect(violation.summary.hasPrefix("GET /v1/messages was sent again at seq \(thirdSeq) after 2 401s in a row"))
        #expect(violation.timeline.last?.seq == thirdSeq)
        #expect(violation.timeline.last?.marker == .offending)
        #expect(violation.timeline.filter { $0.event == "response.delivered" }.count == 2)
    }

    @Test func aRetryLoopIsReportedOnce() throws {
        var (trace, _) = Self.retryStory(retryStatus: 401, thirdAttempt: true)
        trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a2"])
        trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a2"])
        #expect(try trace.check().violations(of: .boundedRetry).count == 1)
    }

    @Test func distinctIdempotencyKeysAreDistinctOperations() throws {
        var trace = TraceBuilder()
        for key in ["k1", "k2", "k3"] {
            trace.exchange("GET", "/v1/messages", status: 401, headers: [("Idempotency-Key", key)], profile: false)
        }
        #expect(try trace.check().passed)
        // Without the header, the same three attempts read as a loop.
        var bare = TraceBuilder()
        for _ in 0..<3 { bare.exchange("GET", "/v1/messages", status: 401, profile: false) }
        #expect(try bare.check().brokenClauses == [.boundedRetry])
    }

    @Test func overlappingAttemptsAreNotRetries() throws {
        var trace = TraceBuilder()
        let flows = (0..<3).map { _ in trace.request("GET", "/v1/messages", profile: false).flow }
        for flow in flows { trace.forward(flow) }
        for flow in flows { trace.deliver(flow, 401) }
        #expect(try trace.check().passed)
    }

    /// POST /upload with a 2048-byte body gets 401; the retry carries `retryBody`.
    static func uploadRetry(
        retryBody: (length: Int, name: String), headers: [(String, String)] = [], method: String = "POST"
    )
        -> TraceBuilder
    {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        let first = trace.request(
            method, "/upload", lineage: "L1", credentials: ["access:a1"], headers: headers, bodyLength: 2048)
        trace.deliver(first.flow, 401, synthetic: true)  // a rule answered: never forwarded, body length from the head
        let refresh = trace.startRefresh("L1", refresh: "r1")
        trace.finishRefresh(
            refresh.flow, lineage: "L1", presented: "r1", replacing: ["access:a1"], access: "a2", refresh: "r2")
        trace.exchange(
            method, "/upload", status: 200, lineage: "L1", credentials: ["access:a2"], headers: headers, body: retryBody
        )
        return trace
    }

    @Test func retryWithItsFullBodyPasses() throws {
        #expect(try Self.uploadRetry(retryBody: (2048, "file")).check().passed)
    }

    @Test func retryWithAnEmptyBodyFails() throws {
        let report = try Self.uploadRetry(retryBody: (0, "")).check()
        #expect(report.brokenClauses == [.replaySafeRetry], "\(report.violations)")
        let summary = try #require(report.violations.first?.summary)
        #expect(summary.contains("with an empty body and no Idempotency-Key header"))
        #expect(summary.contains("with 2048 bytes got 401"))
    }

    @Test func retryWithAnIdempotencyKeyPasses() throws {
        #expect(try Self.uploadRetry(retryBody: (0, ""), headers: [("Idempotency-Key", "u-1")]).check().passed)
    }

    @Test func idempotentMethodsAreNotJudged() throws {
        #expect(try Self.uploadRetry(retryBody: (0, ""), method: "PUT").check().passed)
    }

    @Test func retryWithADifferentBodyOfTheSameLengthFails() throws {
        var trace = TraceBuilder()
        let first = trace.request("POST", "/orders", bodyLength: 64, profile: false)
        trace.forward(first.flow, body: (64, "order-1"))
        trace.abort(first.flow)  // the client gave up waiting
        trace.exchange("POST", "/orders", status: 201, body: (64, "order-1-rebuilt"), profile: false)
        let report = try trace.check()
        #expect(report.brokenClauses == [.replaySafeRetry])
        #expect(report.violations[0].summary.contains("a different body of the same length"))
    }
}
