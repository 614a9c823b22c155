import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineProxy
import FaultlineRules
import FaultlineTrace
import Testing

/// Request-phase rules through the session: decisions, synthetic answers, holds, delays, faults.
@Suite struct RequestRuleTests {
    static let get = "GET http://api.test/v1/messages HTTP/1.1\r\nHost: api.test\r\nAuthorization: Bearer old\r\n\r\n"

    @Test func respondAnswersWithoutContactingUpstream() throws {
        let rules = ruleSet(
            """
            { rules: [{ name: "expired", match: { path: "/v1/*" }, when: { times: 2 },
                        actions: [{ respond: { status: 401, json: { error: "invalid_token" } } }] }] }
            """)
        var play = Playbook(ruleSet: rules)
        for _ in 0..<2 {
            play.client(Self.get)
            let answer = ParsedMessage(play.takeClientText())
            #expect(answer.startLine == "HTTP/1.1 401 Unauthorized")
            #expect(answer.body == #"{"error":"invalid_token"}"#)
            #expect(answer.values("Content-Type") == ["application/json"])
            #expect(!play.connectPending, "a forced 401 never reaches upstream")
        }
        play.client(Self.get)  // `times: 2` is used up: the third request goes upstream
        #expect(play.connectPending)
        let fired = try play.events().filter { $0.kind.rawValue == "rule.fired" }
        #expect(fired.map { $0.int("hit") } == [1, 2])
        #expect(fired.first?.string("rule") == "test/expired")
        play.expect([
            Lines.idle, "cancel clientIdle", "fired test/expired", Lines.idle, "cancel clientIdle",
            "fired test/expired", Lines.idle, "cancel clientIdle", "connect http://api.test:80",
        ])
    }

    @Test func heldRequestGoesUpstreamOnlyAfterRelease() throws {
        var play = Playbook(
            ruleSet: ruleSet(
                #"{ rules: [{ name: "h", match: { method: "GET" }, actions: [{ hold: { name: "gate" } }] }] }"#))
        play.client(Self.get)
        play.expect([Lines.idle, "cancel clientIdle", "fired test/h", "hold gate (request)"])
        #expect(!play.connectPending)
        play.endHold(.release(nil))
        #expect(play.connectPending)
        play.connected()
        #expect(ParsedMessage(play.takeUpstreamText()).startLine == "GET /v1/messages HTTP/1.1")
        #expect(try play.eventKinds().contains("hold.ended"))
        play.expect(["connect http://api.test:80", "arm responseHead 60s"])
    }

    @Test func releaseWithAResponseAnswersInstead() {
        var play = Playbook(
            ruleSet: ruleSet(#"{ rules: [{ name: "h", actions: [{ hold: { name: "gate" } }] }] }"#))
        play.client(Self.get)
        play.endHold(.release(SyntheticResponse(status: 503, body: Array("busy".utf8))))
        let answer = ParsedMessage(play.takeClientText())
        #expect(answer.startLine == "HTTP/1.1 503 Service Unavailable")
        #expect(answer.body == "busy")
        #expect(!play.connectPending)
        play.expect([Lines.idle, "cancel clientIdle", "fired test/h", "hold gate (request)", Lines.idle])
    }

    @Test func holdDeadlineAppliesItsTimeoutOutcome() {
        var play = Playbook(
            ruleSet: ruleSet(
                #"{ rules: [{ name: "h", actions: [{ hold: { name: "gate", timeout: 2, onTimeout: { status: 504 } } }] }] }"#
            ))
        play.client(Self.get)
        play.expect([Lines.idle, "cancel clientIdle", "fired test/h", "hold gate (request)", "arm holdDeadline 2s"])
        play.fire(.holdDeadline)
        play.expect(["unregister hold", Lines.idle])
        #expect(ParsedMessage(play.takeClientText()).startLine == "HTTP/1.1 504 Gateway Timeout")
    }

    @Test func failingAHoldResetsTheClient() {
        var play = Playbook(ruleSet: ruleSet(#"{ rules: [{ name: "h", actions: [{ hold: { name: "gate" } }] }] }"#))
        play.client(Self.get)
        play.endHold(.fail)
        play.expect([
            Lines.idle, "cancel clientIdle", "fired test/h", "hold gate (request)", "cancel clientIdle", "reset client",
        ])
    }

    @Test func delayWaitsForItsTimerBeforeConnecting() {
        var play = Playbook(ruleSet: ruleSet(#"{ rules: [{ name: "slow", actions: [{ delay: 1.5 }] }] }"#))
        play.client(Self.get)
        play.expect([Lines.idle, "cancel clientIdle", "fired test/slow", "arm delay 1.5s"])
        #expect(!play.connectPending)
        play.fire(.flowDelay)
        #expect(play.connectPending)
        play.expect(["connect http://api.test:80"])
    }

    @Test(arguments: [
        ("reset", "reset client"), ("close-before-response", "close client now"),
    ])
    func requestFaultsBreakTheClientConnection(fault: String, expected: String) throws {
        var play = Playbook(ruleSet: ruleSet(#"{ rules: [{ name: "f", actions: [{ fault: "\#(fault)" }] }] }"#))
        play.client(Self.get)
        play.expect([Lines.idle, "cancel clientIdle", "fired test/f", "cancel clientIdle", expected])
        #expect(!play.connectPending)
        #expect(try play.events().contains { $0.string("fault") == fault })
    }

    @Test func bodyMatchWaitsForTheBodyAndForwardsItIntact() throws {
        let rules = ruleSet(
            #"{ rules: [{ name: "pw", match: { body: { form: { grant_type: "password" } } }, actions: [{ delay: 1 }] }] }"#
        )
        var play = Playbook(ruleSet: rules)
        let body = "grant_type=password&username=a"
        play.client(
            "POST http://api.test/oauth/token HTTP/1.1\r\nHost: api.test\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
        #expect(!play.connectPending, "the decision waits for the body")
        play.client(String(body.prefix(10)))
        #expect(!play.connectPending)
        play.client(String(body.dropFirst(10)))
        play.expect([Lines.idle, "cancel clientIdle", "fired test/pw", "arm delay 1s"])
        play.fire(.flowDelay)
        play.connected()
        #expect(ParsedMessage(play.takeUpstreamText()).body == body)
        play.expect(["connect http://api.test:80", "arm responseHead 60s"])
    }

    @Test func duplicateHandsTheDriverTheWholeRequest() throws {
        var play = Playbook(
            ruleSet: ruleSet(
                #"{ rules: [{ name: "twice", match: { method: "POST" }, actions: [{ duplicate: { count: 2, timing: "before-response" } }] }] }"#
            ))
        play.client("POST http://api.test/jobs/7/complete HTTP/1.1\r\nHost: api.test\r\nContent-Length: 2\r\n\r\nok")
        play.connected()
        let duplicate = try #require(
            play.expect([
                Lines.idle, "cancel clientIdle", "fired test/twice", "connect http://api.test:80",
                "arm responseHead 60s",
                "duplicate x2",
            ]).compactMap { action -> DuplicateRequest? in
                if case .duplicate(let request) = action { return request } else { return nil }
            }.first)
        #expect(duplicate.count == 2)
        let copy = String(decoding: duplicate.bytes, as: UTF8.self)
        #expect(copy.hasPrefix("POST /jobs/7/complete HTTP/1.1\r\n"))
        // Framed like any request the flow sends (the codec puts `Via` last, after the framing).
        #expect(copy.contains("\r\nContent-Length: 2\r\n"))
        #expect(copy.hasSuffix("\r\n\r\nok"))
    }

    /// A rule waiting for a flow stage makes the session report every stage.
    @Test func observersHearEveryStageOfAFlow() {
        var play = Playbook(
            ruleSet: ruleSet(
                #"{ rules: [{ name: "later", match: { path: "/none" }, when: { after: "business.delivered" } }] }"#))
        play.client(Self.get)
        play.connected()
        play.upstream("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        play.expect([
            Lines.idle, "cancel clientIdle", "observed business.received", "connect http://api.test:80",
            "arm responseHead 60s", "observed business.forwarded", "cancel responseHead", "observed business.responded",
            "observed business.delivered", "release upstream", Lines.idle,
        ])
    }

    /// With nobody waiting for stages (no such condition, no hold released by an event), the
    /// session does not report them: that is most flows, and it saves work on every one.
    @Test func stagesAreNotReportedWhenNobodyWaits() {
        var play = Playbook(
            ruleSet: ruleSet(#"{ rules: [{ name: "x", match: { path: "/none" }, actions: [{ delay: 1 }] }] }"#))
        play.client(Self.get)
        play.connected()
        play.upstream("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        play.expect(Lines.opened("http://api.test:80") + Lines.pooled)
    }
}
