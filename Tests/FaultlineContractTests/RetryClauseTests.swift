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

    /// A different body of the same length with no key is another operation, not a retry that
    /// lost its body (issue 20: only evidence makes a retry).
    @Test func aDifferentBodyOfTheSameLengthIsANewOperation() throws {
        var trace = TraceBuilder()
        let first = trace.request("POST", "/orders", bodyLength: 64, profile: false)
        trace.forward(first.flow, body: (64, "order-1"))
        trace.abort(first.flow)  // the client gave up waiting
        trace.exchange("POST", "/orders", status: 201, body: (64, "order-2"), profile: false)
        let report = try trace.check()
        #expect(report.violations.isEmpty, "\(report.violations)")
        #expect(report.clausesChecked.contains(.replaySafeRetry))
    }

    // MARK: One operation per chain (issue 9: an unkeyed request is not an attempt of a keyed operation)

    /// A rule answers 401 to every `GET /force401`: one request without an idempotency key, then
    /// three with `Idempotency-Key: op1` (after a login of L1 when `login`).
    static func keyedAfterUnkeyed(login: Bool) -> (TraceBuilder, unkeyed: UInt64, keyed: [UInt64], login: UInt64?) {
        var trace = TraceBuilder()
        let unkeyed = trace.request("GET", "/force401", profile: login)
        trace.deliver(unkeyed.flow, 401, synthetic: true)
        let loginSeq = login ? trace.login("L1", access: "a1", refresh: "r1") : nil
        var keyed: [UInt64] = []
        for _ in 0..<3 {
            let attempt = trace.request(
                "GET", "/force401", lineage: login ? "L1" : nil, credentials: login ? ["access:a1"] : [],
                headers: [("Idempotency-Key", "op1")], profile: login)
            trace.deliver(attempt.flow, 401, synthetic: true)
            keyed.append(attempt.seq)
        }
        return (trace, unkeyed.seq, keyed, loginSeq)
    }

    @Test(arguments: [false, true])
    func anUnkeyedRequestIsNotAnAttemptOfTheKeyedOperation(login: Bool) throws {
        let (trace, unkeyed, keyed, loginSeq) = Self.keyedAfterUnkeyed(login: login)
        let report = try trace.check()
        #expect(report.brokenClauses == [.boundedRetry], "\(report.violations)")
        let violation = try #require(report.violations.first)
        #expect(violation.details["request_seq"] == String(keyed[2]))
        #expect(violation.timeline.last?.seq == keyed[2])
        #expect(violation.timeline.last?.marker == .offending)
        let shown = violation.timeline.filter { $0.event == "request.received" }.map(\.seq)
        #expect(shown == keyed)
        #expect(!violation.witnesses.contains(unkeyed))
        if let loginSeq {
            #expect(violation.lineage == "L1")
            for event in violation.timeline where event.lineage == "L1" { #expect(event.seq > loginSeq) }
        }
    }

    @Test func twoKeyedAttemptsAfterAnUnkeyedOnePass() throws {
        var trace = TraceBuilder()
        let unkeyed = trace.request("GET", "/force401", profile: false)
        trace.deliver(unkeyed.flow, 401, synthetic: true)
        for _ in 0..<2 {
            let attempt = trace.request("GET", "/force401", headers: [("Idempotency-Key", "op1")], profile: false)
            trace.deliver(attempt.flow, 401, synthetic: true)
        }
        #expect(try trace.check().passed)
    }

    /// A request sent before L1's login, then two after it, one operation (no keys, no bodies):
    /// the loop is real, but the first attempt is not shown under L1.
    @Test func anAttemptBeforeTheLoginIsNotShownUnderThatLineage() throws {
        var trace = TraceBuilder()
        let before = trace.request("GET", "/v1/messages")
        trace.deliver(before.flow, 401)
        let login = trace.login("L1", access: "a1", refresh: "r1")
        trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a1"])
        let third = trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a1"])
        let report = try trace.check()
        #expect(report.brokenClauses == [.boundedRetry], "\(report.violations)")
        let violation = try #require(report.violations.first)
        #expect(violation.details["request_seq"] == String(third.seq))
        let first = try #require(violation.timeline.first { $0.seq == before.seq })
        #expect(first.lineage == nil)
        for event in violation.timeline where event.lineage == "L1" { #expect(event.seq > login) }
    }

    /// A request presenting a token before the login that issues it (the login's answer overtook
    /// it) still ends after the login: it does not belong to that login's lineage.
    @Test func aRequestThatArrivedBeforeALoginNeverBelongsToIt() throws {
        var trace = TraceBuilder()
        let early = trace.request("GET", "/v1/messages", lineage: nil, credentials: ["access:a1"])
        trace.forward(early.flow)
        let login = trace.login("L1", access: "a1", refresh: "r1")
        trace.deliver(early.flow, 401)
        trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a1"])
        trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a1"])
        let report = try trace.check()
        let violation = try #require(report.violations(of: .boundedRetry).first, "\(report.violations)")
        let first = try #require(violation.timeline.first { $0.seq == early.seq })
        #expect(first.lineage == nil)
        for event in violation.timeline where event.lineage == "L1" { #expect(event.seq > login) }
    }
}
