import FaultlineContract
import Testing

/// replay-safe-retry judges a request as a retry only on evidence (the same key, the same body, or
/// a body that lost what the attempt had), and says exactly what the retry lost.
@Suite struct ReplaySafeRetryTests {
    /// A POST a rule answered `status` (never forwarded: its length comes from its head), then a
    /// second POST to the same URL, forwarded with `retry` and `retryContent`.
    static func story(
        first: (length: Int, headers: [(String, String)]), status: Int = 503,
        retry: (length: Int, name: String, headers: [(String, String)]), firstContent: String? = nil,
        retryContent: String? = nil
    ) -> (TraceBuilder, retrySeq: UInt64) {
        var trace = TraceBuilder()
        let attempt = trace.request(
            "POST", "/v1/notes", headers: first.headers, bodyLength: first.length, profile: false)
        if let firstContent {
            trace.forward(attempt.flow, body: (first.length, "first"), content: firstContent)
        }
        trace.deliver(attempt.flow, status, synthetic: firstContent == nil)
        let second = trace.request(
            "POST", "/v1/notes", headers: retry.headers, bodyLength: retry.length, profile: false)
        trace.forward(second.flow, body: (retry.length, retry.name), content: retryContent)
        trace.deliver(second.flow, 201)
        return (trace, second.seq)
    }

    /// The new user's report: a forced 503 on a 19-byte note, then another note of 67 bytes with
    /// no key. It is a new operation, not a retry "without its body".
    @Test func anotherNoteAfterAForcedFailureIsNotARetry() throws {
        let (trace, _) = Self.story(first: (19, []), retry: (67, "another note", []))
        let report = try trace.check()
        #expect(report.violations.isEmpty, "\(report.violations.map(\.summary))")
    }

    /// A failed login as bob, then a login as alice, in a trace without an auth profile (a
    /// replay's): two bodies, two operations.
    @Test func aFailedLoginThenAnotherAccountsLoginIsNotARetry() throws {
        var trace = TraceBuilder()
        let bob = trace.request("POST", "/login", bodyLength: 31, profile: false)
        trace.forward(bob.flow, body: (31, "user=bob&password=wrong-one"))
        trace.deliver(bob.flow, 401)
        trace.exchange("POST", "/login", status: 200, body: (31, "user=alice&password=right-one"), profile: false)
        #expect(try trace.check().violations.isEmpty)
    }

    @Test func theSameBodySentAgainWithoutAKeyIsSafe() throws {
        var trace = TraceBuilder()
        let first = trace.request("POST", "/v1/notes", bodyLength: 19, profile: false)
        trace.forward(first.flow, body: (19, "note"))
        trace.deliver(first.flow, 503)
        trace.exchange("POST", "/v1/notes", status: 201, body: (19, "note"), profile: false)
        #expect(try trace.check().violations.isEmpty)
    }

    @Test func anEmptyRetryIsCaughtAndSaysSo() throws {
        let (trace, retrySeq) = Self.story(first: (19, []), retry: (0, "", []))
        let report = try trace.check()
        #expect(report.brokenClauses == [.replaySafeRetry])
        let violation = try #require(report.violations.first)
        #expect(
            violation.summary
                == "POST /v1/notes was retried at seq \(retrySeq) with an empty body and no Idempotency-Key header, after the attempt at seq 1 with 19 bytes got 503"
        )
        #expect(violation.details["lapse"] == "empty-body")
        #expect(violation.timeline.last?.note == "retry with an empty body")
    }

    @Test func aRetryThatDropsTheAttemptsKeyIsCaught() throws {
        let (trace, _) = Self.story(
            first: (19, [("Idempotency-Key", "n-1")]), retry: (19, "note", []))
        let report = try trace.check()
        let violation = try #require(report.violations(of: .replaySafeRetry).first, "\(report.violations)")
        #expect(violation.summary.contains("with the same body but without the Idempotency-Key the attempt carried"))
        #expect(violation.summary.contains("with 19 bytes and Idempotency-Key got 503"))
        #expect(violation.details["lapse"] == "dropped-key")
        #expect(violation.timeline.last?.note == "retry without its Idempotency-Key")
    }

    @Test func aRetryWithAnotherKeyIsCaught() throws {
        let (trace, _) = Self.story(
            first: (19, [("Idempotency-Key", "n-1")]), retry: (19, "note", [("Idempotency-Key", "n-2")]))
        let report = try trace.check()
        let violation = try #require(report.violations(of: .replaySafeRetry).first, "\(report.violations)")
        #expect(violation.summary.contains("with the same body but another Idempotency-Key"))
        #expect(violation.timeline.last?.note == "retry with another Idempotency-Key")
    }

    /// Another body under another key is another operation; the same key makes it a retry, and a
    /// kept key makes it safe whatever its body.
    @Test(arguments: [("n-2", 67), ("n-1", 67), ("n-1", 0)])
    func keyedRequestsThatKeepOrNameTheirOperationPass(key: String, length: Int) throws {
        let (trace, _) = Self.story(
            first: (19, [("Idempotency-Key", "n-1")]),
            retry: (length, "body-\(length)", [("Idempotency-Key", key)]))
        #expect(try trace.check().violations.isEmpty)
    }

    @Test func aRetryThatAddsAKeyIsSafe() throws {
        let (trace, _) = Self.story(first: (19, []), retry: (0, "", [("Idempotency-Key", "n-1")]))
        #expect(try trace.check().violations.isEmpty)
    }

    /// In a capture, a body that is the start of the attempt's is the attempt cut short.
    @Test func aCapturedRetryCutShortIsCaught() throws {
        let note = #"{"text":"buy milk and eggs"}"#
        let cut = String(note.prefix(12))
        let (trace, _) = Self.story(
            first: (note.utf8.count, []), retry: (cut.utf8.count, "cut", []), firstContent: note, retryContent: cut)
        let report = try trace.check()
        let violation = try #require(report.violations(of: .replaySafeRetry).first, "\(report.violations)")
        #expect(
            violation.summary.contains(
                "with a truncated body (12 of \(note.utf8.count) bytes) and no Idempotency-Key header"))
        #expect(violation.details["lapse"] == "truncated-body")
        #expect(violation.timeline.last?.note == "retry with a truncated body")
    }

    /// A shorter body that is not the attempt's beginning (or with no capture to tell) is another note.
    @Test(arguments: [true, false])
    func aShorterOtherBodyIsANewOperation(captured: Bool) throws {
        let note = #"{"text":"buy milk and eggs"}"#
        let other = #"{"text":"call"}"#
        let (trace, _) = Self.story(
            first: (note.utf8.count, []), retry: (other.utf8.count, "other", []),
            firstContent: captured ? note : nil, retryContent: captured ? other : nil)
        #expect(try trace.check().violations.isEmpty)
    }

    /// No sentence of the clause says "without its body" any more: it said so of longer bodies.
    @Test func noWitnessSaysWithoutItsBody() throws {
        for (trace, _) in [
            Self.story(first: (19, []), retry: (0, "", [])),
            Self.story(first: (19, [("Idempotency-Key", "n-1")]), retry: (19, "note", [])),
        ] {
            for violation in try trace.check().violations {
                #expect(!violation.summary.contains("without its body"))
                #expect(!violation.timeline.contains { $0.note.contains("without its body") })
            }
        }
    }
}
