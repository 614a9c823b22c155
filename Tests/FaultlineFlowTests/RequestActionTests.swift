import FaultlineFlow
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace
import Testing

/// Request-phase rule actions, each as the whole sequence of a flow: faults, delay, throttle,
/// request rewrites, routes, and the request body the decision reads.
@Suite struct RequestActionTests {
    static let received = Lines.decidedBusiness

    // MARK: Faults

    @Test func resetBreaksTheClientBeforeAnyUpstream() {
        let play = StrictPlaybook(FlowFixtures.get(), rules: #"{ name: "f", actions: [{ fault: "reset" }] }"#)
        play.expect(
            Self.received + Lines.fired("f") + [
                "trace fault.injected fault=reset phase=request", "break reset", "ended aborted",
            ])
        play.everyInput()
        play.expectNothing()
    }

    /// The rule's HTTP/2 code rides on the break, so the stream's framing resets with it after
    /// the flow has ended.
    @Test func aResetWithACodeCarriesItOnTheBreak() {
        let play = StrictPlaybook(
            FlowFixtures.get(),
            rules: #"{ name: "f", actions: [{ fault: { kind: "reset", code: "REFUSED_STREAM" } }] }"#)
        play.expect(
            Self.received + Lines.fired("f") + [
                "trace fault.injected fault=reset phase=request", "break reset code=REFUSED_STREAM", "ended aborted",
            ])
        play.everyInput()
        play.expectNothing()
    }

    @Test func closeBeforeResponseClosesTheClient() {
        let play = StrictPlaybook(
            FlowFixtures.get(), rules: #"{ name: "f", actions: [{ fault: "close-before-response" }] }"#)
        play.expect(
            Self.received + Lines.fired("f") + [
                "trace fault.injected fault=close-before-response phase=request", "break close", "ended aborted",
            ])
        play.everyInput()
        play.expectNothing()
    }

    /// A stalled request goes nowhere: its body is swallowed, and its deadline closes the client.
    @Test func aStalledRequestClosesAtItsDeadline() {
        let play = StrictPlaybook(
            FlowFixtures.post(length: 2), rules: #"{ name: "f", actions: [{ fault: { kind: "stall", seconds: 5 } }] }"#)
        play.expect(
            Self.received + Lines.fired("f") + ["trace fault.injected fault=stall phase=request", "arm stall 5s"])
        play.requestBody("ok")
        play.requestEnd()
        play.fire(.delay)  // not armed: ignored
        play.expectNothing()
        play.fire(.stall)
        play.expect(["break close", "ended aborted"])
        play.everyInput()
        play.expectNothing()
    }

    // MARK: Delay and throttle

    @Test func aDelayHoldsTheRequestAndItsBodyUntilItsTimer() {
        let play = StrictPlaybook(FlowFixtures.post(length: 2), rules: #"{ name: "slow", actions: [{ delay: 1.5 }] }"#)
        play.expect(Self.received + Lines.fired("slow") + ["arm delay 1.5s"])
        play.requestBody("ok")
        play.requestEnd()
        play.expectNothing()
        play.fire(.delay)
        play.expect(["open http://api.test:80", "send head POST /jobs known(2)", "send body 2", "send end"])
        play.connected()
        play.expect(Lines.forwarded(body: 2))
        play.upstreamHead(204, length: .none)
        play.expect(Lines.responded(204) + ["client head 204 none upstream"])
        play.upstreamEnd()
        play.expect(Lines.delivered(204, body: 0))
        #expect(play.upstreamText == "ok")
    }

    /// A throttle paces this flow's upstream side, and stops pacing when the flow ends.
    @Test func aRequestThrottlePacesTheUpstreamUntilTheFlowEnds() {
        let play = StrictPlaybook(FlowFixtures.post(length: 2), rules: #"{ name: "t", actions: [{ throttle: 100 }] }"#)
        play.expect(
            Self.received + Lines.fired("t") + [
                "throttle upstream 100", "open http://api.test:80", "send head POST /jobs known(2)",
            ])
        play.requestBody("ok")
        play.requestEnd()
        play.connected()
        play.expect(["send body 2", "send end"] + Lines.forwarded(body: 2))
        play.upstreamHead(200, length: .known(0))
        play.upstreamEnd()
        play.expect(
            Lines.responded() + [
                "client head 200 known(0) upstream", "client end", "trace response.delivered status=200 body=0",
                "release upstream", "throttle upstream off", "ended finished",
            ])
    }

    // MARK: Rewrites

    @Test func aRewriteChangesMethodPathQueryHeadersAndBody() {
        let play = StrictPlaybook(
            FlowFixtures.post("http://api.test/v1/me?old=1", length: 4, headers: [("Authorization", "Bearer x")]),
            rules: #"""
                { name: "rw", actions: [{ rewrite: { method: "PUT", path: "/v2/me", query: "a=1",
                    headers: { set: { "X-Env": "test" }, add: { "X-Tag": "t" }, remove: ["Authorization"] },
                    body: "new" } }] }
                """#)
        play.expect(
            Self.received + Lines.fired("rw") + [
                "open http://api.test:80", "send head PUT /v2/me?a=1 known(3)", "send body 3", "send end",
            ])
        play.requestBody("old!")
        play.requestEnd()
        play.expectNothing()  // the client's own body is read and dropped
        play.connected()
        play.expect(Lines.forwarded(body: 3))
        let head = play.requestHeads[0]
        #expect(head.authority == "api.test")
        #expect(head.headers.values(name: "x-env") == ["test"])
        #expect(head.headers.values(name: "x-tag") == ["t"])
        #expect(!head.headers.contains(name: "authorization"))
        #expect(play.upstreamText == "new")
        // The trace keeps what the client sent.
        #expect(play.field("method", of: "request.received") == "POST")
        #expect(play.field("path", of: "request.received") == "/v1/me")
    }

    @Test func aRemovedQueryLeavesThePathAlone() {
        let play = StrictPlaybook(
            FlowFixtures.get("http://api.test/v1/me?debug=1"),
            rules: #"{ name: "rw", actions: [{ rewrite: { query: "" } }] }"#)
        play.expect(Self.received + Lines.fired("rw") + Lines.sendGet)
    }

    /// A JSON edit reads the whole body first, then sends the edited text: every other byte is
    /// kept, a 20-digit integer included.
    @Test func aJSONSetWaitsForTheWholeBodyAndKeepsBigIntegers() {
        let body = #"{"id":12345678901234567890,"n":1}"#
        let play = StrictPlaybook(
            FlowFixtures.post(length: body.utf8.count, headers: [("Content-Type", "application/json")]),
            rules: #"{ name: "js", phase: "request", actions: [{ rewrite: { jsonSet: { "/n": 2 } } }] }"#)
        play.expect(Self.received + Lines.fired("js"))
        play.requestBody(String(body.prefix(10)))
        play.requestBody(String(body.dropFirst(10)))
        play.expectNothing()
        play.requestEnd()
        play.expect(["open http://api.test:80", "send head POST /jobs known(33)", "send body 33", "send end"])
        play.connected()
        play.expect(Lines.forwarded(body: 33))
        #expect(play.upstreamText == #"{"id":12345678901234567890,"n":2}"#)
    }

    /// Too large to edit: the edit is skipped (said once) and the body streams unchanged from
    /// then on, as the response side does.
    @Test func aJSONSetOnABodyOverTheLimitIsSkipped() {
        let play = StrictPlaybook(
            FlowFixtures.post(length: 17),
            rules: #"{ name: "js", phase: "request", actions: [{ rewrite: { jsonSet: { "/n": 2 } } }] }"#, bodyLimit: 8)
        play.expect(Self.received + Lines.fired("js"))
        play.requestBody(#"{"n":1,"#)
        play.expectNothing()
        play.requestBody(#""m":2,"#)
        play.expect([
            "trace rule.skipped action=rewrite", "open http://api.test:80", "send head POST /jobs known(17)",
            "send body 13",
        ])
        play.requestBody(#""k"}"#)
        play.expect(["send body 4"])
        play.requestEnd()
        play.expect(["send end"])
        #expect(play.upstreamText == #"{"n":1,"m":2,"k"}"#)
    }

    // MARK: Routes

    /// A URL names the whole destination: the upstream is the stub, its prefix goes before the path.
    @Test func aRouteURLSendsTheRequestElsewhere() {
        let play = StrictPlaybook(
            FlowFixtures.get("http://api.test/v1/me?x=1"),
            rules: #"{ name: "stub", actions: [{ route: "http://127.0.0.1:8081/stub" }] }"#)
        play.expect(
            Self.received + Lines.fired("stub") + [
                "open http://127.0.0.1:8081/stub", "send head GET /stub/v1/me?x=1", "send end",
            ])
        #expect(play.requestHeads[0].authority == "127.0.0.1:8081")
        #expect(play.field("host", of: "request.received") == "api.test", "the trace keeps the client's destination")
    }

    /// An object changes only the parts it names.
    @Test func aRouteObjectChangesOnlyItsParts() {
        let play = StrictPlaybook(
            FlowFixtures.get("http://api.test:8080/v1/me"),
            rules: #"{ name: "staging", actions: [{ route: { host: "staging.test", pathPrefix: "/v2" } }] }"#)
        play.expect(
            Self.received + Lines.fired("staging") + [
                "open http://staging.test:8080/v2", "send head GET /v2/v1/me", "send end",
            ])
        #expect(play.requestHeads[0].authority == "staging.test:8080")
    }

    // MARK: The body the decision reads

    /// A rule on the body: nothing happens (not even `request.received`) until the body is read.
    @Test func aBodyMatchDecidesOnceTheBodyIsRead() {
        let play = StrictPlaybook(
            FlowFixtures.post(length: 10),
            rules: #"{ name: "b", match: { body: { contains: "urgent" } }, actions: [{ delay: 1 }] }"#)
        play.expectNothing()
        play.requestBody("is ")
        play.expectNothing()
        play.requestBody("urgent!")
        play.expectNothing()
        play.requestEnd()
        play.expect(Self.received + Lines.fired("b") + ["arm delay 1s"])
        play.fire(.delay)
        play.expect(["open http://api.test:80", "send head POST /jobs known(10)", "send body 10", "send end"])
        #expect(play.upstreamText == "is urgent!")
    }

    /// A body over the limit is not read for rules: the decision comes at once, without it.
    @Test func aBodyOverTheLimitStreamsUnread() {
        let play = StrictPlaybook(
            FlowFixtures.post(length: 10),
            rules: #"{ name: "b", match: { body: { contains: "12" } }, actions: [{ delay: 1 }] }"#, bodyLimit: 4)
        play.expectNothing()
        play.requestBody("12345")
        play.expect(Self.received + ["open http://api.test:80", "send head POST /jobs known(10)", "send body 5"])
        play.requestBody("67890")
        play.requestEnd()
        play.expect(["send body 5", "send end"])
    }
}
