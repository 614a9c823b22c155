import FaultlineFlow
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace
import Testing

/// Every way a flow ends, each as the whole sequence of actions: finished, answered, failed,
/// refused, upstream broke, tunnelled. (Aborted flows are in the action tests, client-gone ones in
/// `ClientGoneTests`.) Each test ends by feeding every input to the ended flow, which must stay silent.
@Suite struct FlowEndingTests {
    static let opened = ["trace request.received", "open http://api.test:80", "send head GET /v1/me", "send end"]

    @Test func aPlainGetFinishes() {
        let play = StrictPlaybook(FlowFixtures.get())
        play.expect(Self.opened)
        play.connected()
        play.expect(["trace request.forwarded body=0", "arm responseHead 60s"])
        play.upstreamHead(200, [("Content-Length", "2")], length: .known(2))
        play.expect(["cancel responseHead", "trace response.received status=200", "client head 200 known(2) upstream"])
        play.upstreamBody("ok")
        play.expect(["client body 2"])
        play.upstreamEnd()
        play.expect(["client end", "trace response.delivered status=200 body=2", "release upstream", "ended finished"])
        #expect(play.clientText == "ok")
        play.everyInput()
        play.expectNothing()
    }

    @Test func aPostWithABodyFinishes() {
        let play = StrictPlaybook(FlowFixtures.post(length: 5))
        play.expect(["trace request.received", "open http://api.test:80", "send head POST /jobs known(5)"])
        play.connected()
        play.expectNothing()  // forwarded only once the whole request is on its way
        play.requestBody("he")
        play.expect(["send body 2"])
        play.requestBody("llo")
        play.expect(["send body 3"])
        play.requestEnd()
        play.expect(["send end", "trace request.forwarded body=5", "arm responseHead 60s"])
        play.upstreamInterim(100)
        play.expect(["client interim 100"])
        play.upstreamHead(201, length: .unknown)
        play.expect(["cancel responseHead", "trace response.received status=201", "client head 201 unknown upstream"])
        play.upstreamBody("done")
        play.upstreamEnd(trailers: HTTPHeaders([("X-Checksum", "1")]))
        play.expect([
            "client body 4", "client end trailers=X-Checksum", "trace response.delivered status=201 body=4",
            "release upstream", "ended finished",
        ])
        #expect(play.upstreamText == "hello")
        play.everyInput()
        play.expectNothing()
    }

    /// With rules loaded but none firing, the flow takes the rules' path (a decision, the response
    /// gate) and still sends only what a plain flow sends.
    @Test func aFlowNoRuleMatchesFinishes() {
        let play = StrictPlaybook(
            FlowFixtures.get(),
            rules: #"{ name: "r", match: { path: "/other" }, phase: "response", actions: [{ delay: 1 }] }"#)
        play.expect(["trace request.received role=business"] + Self.opened.dropFirst())
        play.connected()
        play.expect(["trace request.forwarded body=0", "arm responseHead 60s"])
        play.upstreamHead(200, length: .known(2))
        play.expect([
            "cancel responseHead", "decide response 200", "trace response.received status=200",
            "client head 200 known(2) upstream",
        ])
        play.upstreamBody("ok")
        play.upstreamEnd()
        play.expect([
            "client body 2", "client end", "trace response.delivered status=200 body=2", "release upstream",
            "ended finished",
        ])
    }

    @Test func aRulesResponseAnswersWithoutTheUpstream() {
        let play = StrictPlaybook(
            FlowFixtures.get(),
            rules: #"{ name: "expired", actions: [{ respond: { status: 401, json: { error: "invalid_token" } } }] }"#)
        play.expect([
            "decide request", "trace request.received role=business", "trace rule.fired rule=s/expired phase=request",
            "fired s/expired",
            "client head 401 known(25) rule", "client body 25", "client end",
            "trace response.delivered status=401 synthetic=true body=25", "ended answered",
        ])
        #expect(play.responseHeads.first?.reason == "Unauthorized")
        #expect(play.responseHeads.first?.headers.values(name: "content-type") == ["application/json"])
        #expect(play.clientText == #"{"error":"invalid_token"}"#)
        play.everyInput()
        play.expectNothing()
    }

    /// `rateLimit: 2` answers 429 with `Retry-After: 2` and a JSON body, and the delivery says
    /// what it asked of the client (the retry-after-respected clause reads it).
    @Test func aRateLimitAnswers429WithRetryAfterAndTracesIt() {
        let play = StrictPlaybook(FlowFixtures.get(), rules: #"{ name: "busy", actions: [{ rateLimit: 2 }] }"#)
        play.expect([
            "decide request", "trace request.received role=business", "trace rule.fired rule=s/busy phase=request",
            "fired s/busy",
            "client head 429 known(40) rule", "client body 40", "client end",
            "trace response.delivered status=429 synthetic=true body=40 retry_after=2", "ended answered",
        ])
        #expect(play.responseHeads.first?.reason == "Too Many Requests")
        #expect(play.responseHeads.first?.headers.values(name: "retry-after") == ["2"])
        #expect(play.clientText == #"{"error":"rate_limited","retry_after":2}"#)
    }

    /// An upstream's 503 says when to come back; a 200 carrying the field asks nothing.
    @Test(arguments: [(503, true), (200, false)])
    func anUpstreamRetryAfterIsTracedOnlyOnA429Or503(status: Int, traced: Bool) {
        let play = StrictPlaybook(FlowFixtures.get())
        play.expect(["trace request.received"] + Lines.sendGet)
        play.connected()
        play.expect(Lines.forwarded())
        play.upstreamHead(status, [("Retry-After", "Fri, 31 Dec 1999 23:59:59 GMT")], length: .known(0))
        play.expect(Lines.responded(status) + ["client head \(status) known(0) upstream"])
        play.upstreamEnd()
        let delivered = "trace response.delivered status=\(status) body=0"
        play.expect(
            ["client end", traced ? delivered + " retry_after=Fri, 31 Dec 1999 23:59:59 GMT" : delivered]
                + ["release upstream", "ended finished"])
    }

    @Test func aHoldReleasedWithAStatusAnswers() {
        let play = StrictPlaybook(FlowFixtures.get(), rules: #"{ name: "h", actions: [{ hold: { name: "gate" } }] }"#)
        play.expect([
            "decide request", "trace request.received role=business", "trace rule.fired rule=s/h phase=request",
            "fired s/h",
            "hold gate (request)", "trace hold.started name=gate phase=request",
        ])
        play.holdEnded(.release(SyntheticResponse(status: 503, body: Array("busy".utf8))))
        play.expect([
            "trace hold.ended name=gate outcome=released-with-response ended_by=control",
            "client head 503 known(4) rule",
            "client body 4", "client end", "trace response.delivered status=503 synthetic=true body=4",
            "ended answered",
        ])
        #expect(play.responseHeads.first?.reason == "Service Unavailable")
        play.everyInput()
        play.expectNothing()
    }

    @Test func anUnreachableUpstreamFails502() {
        let play = StrictPlaybook(FlowFixtures.get())
        play.expect(Self.opened)
        play.upstreamFailed(.connectRefused("api.test:80", "connection refused"))
        let actions = play.expect([
            "trace upstream.error code=connect-failed status=502", "close upstream",
            "client head 502 known(61) proxy-error", "client body 61", "client end",
            "trace response.delivered status=502 synthetic=true code=connect-failed", "ended failed",
        ])
        #expect(actions.count == 7)
        #expect(play.responseHeads.first?.headers.values(name: "x-faultline-error") == ["connect-failed"])
        #expect(play.clientText == "faultline: cannot connect to api.test:80: connection refused\n")
        play.everyInput()
        play.expectNothing()
    }

    @Test func noResponseHeadInTimeFails504() {
        let play = StrictPlaybook(FlowFixtures.get(), responseTimeout: .seconds(5))
        play.expect(Self.opened)
        play.connected()
        play.expect(["trace request.forwarded body=0", "arm responseHead 5s"])
        play.fire(.responseHead)
        play.expect([
            "trace upstream.error code=response-timeout status=504", "close upstream",
            "client head 504 known(60) proxy-error", "client body 60", "client end",
            "trace response.delivered status=504 synthetic=true code=response-timeout", "ended failed",
        ])
        #expect(play.clientText == "faultline: http://api.test:80 sent no response head in time\n")
        play.everyInput()
        play.expectNothing()
    }

    /// Once the client has a head, a failure can only cut the response short.
    @Test func anUpstreamFailureAfterTheHeadCutsTheClient() {
        let play = StrictPlaybook(FlowFixtures.get())
        play.expect(Self.opened)
        play.connected()
        play.upstreamHead(200, length: .known(10))
        play.upstreamBody("par")
        play.expect([
            "trace request.forwarded body=0", "arm responseHead 60s", "cancel responseHead",
            "trace response.received status=200", "client head 200 known(10) upstream", "client body 3",
        ])
        play.upstreamFailed(.closedBeforeResponse("http://api.test:80"))
        play.expect([
            "trace upstream.error code=upstream-closed status=502", "close upstream", "break close-after-flush",
            "ended failed",
        ])
    }

    /// RFC 9112 §9.3.1: a bodiless request on a pooled connection the upstream had closed is sent
    /// again on a fresh one; the flow is forwarded again and its deadline starts again.
    @Test func aRetriedRequestIsForwardedAgain() {
        let play = StrictPlaybook(FlowFixtures.get())
        play.expect(Self.opened)
        play.connected(reused: true)
        play.expect(["trace request.forwarded body=0", "arm responseHead 60s"])
        play.connected(reused: false)
        play.expect(["trace request.forwarded body=0", "arm responseHead 60s"])
        play.upstreamHead(200, length: .known(0))
        play.upstreamEnd()
        play.expect(
            ["cancel responseHead", "trace response.received status=200", "client head 200 known(0) upstream"]
                + Lines.delivered(body: 0))
    }

    /// Trailers go upstream with the end of a chunked request, also when a gate kept them.
    @Test func requestTrailersGoUpstreamAfterAGate() {
        let play = StrictPlaybook(
            FlowFixtures.request(
                "POST", "http://api.test/jobs", headers: [("Transfer-Encoding", "chunked")], body: .unknown),
            rules: #"{ name: "slow", actions: [{ delay: 1 }] }"#)
        play.expect(Lines.decidedBusiness + Lines.fired("slow") + ["arm delay 1s"])
        play.requestBody("abc")
        play.requestEnd(trailers: HTTPHeaders([("X-Sum", "1")]))
        play.expectNothing()
        play.fire(.delay)
        play.expect([
            "open http://api.test:80", "send head POST /jobs unknown", "send body 3", "send end trailers=X-Sum",
        ])
    }

    @Test func anUnroutableRequestIsRefused() {
        let play = StrictPlaybook(
            refusing: FlowFixtures.get(), status: 508, code: "proxy-loop", message: "it would loop", routed: true)
        play.expect([
            "trace request.received", "trace protocol.error side=client code=proxy-loop status=508",
            "client head 508 known(25) proxy-error", "client body 25", "client end",
            "trace response.delivered status=508 synthetic=true code=proxy-loop", "ended refused",
        ])
        #expect(play.responseHeads.first?.reason == "Loop Detected")
        #expect(play.field("host", of: "request.received") == "api.test")
    }

    @Test func anUnroutedRefusalTracesNoHost() {
        let play = StrictPlaybook(
            refusing: FlowFixtures.get(), status: 400, code: "bad-target", message: "no host", routed: false)
        play.expect([
            "trace request.received", "trace protocol.error side=client code=bad-target status=400",
            "client head 400 known(19) proxy-error", "client body 19", "client end",
            "trace response.delivered status=400 synthetic=true code=bad-target", "ended refused",
        ])
        #expect(play.field("host", of: "request.received") == nil)
    }

    /// A body whose framing breaks mid-way: the upstream request is abandoned and the client answered.
    @Test func aMalformedRequestBodyIsRefused() {
        let play = StrictPlaybook(FlowFixtures.request("POST", "http://api.test/jobs", body: .unknown))
        play.expect(["trace request.received", "open http://api.test:80", "send head POST /jobs unknown"])
        play.connected()
        play.requestBody("abc")
        play.expect(["send body 3"])
        play.requestMalformed(status: 400, code: "bad-chunk", message: "chunk size is not hex")
        play.expect([
            "trace protocol.error side=client code=bad-chunk status=400", "close upstream",
            "client head 400 known(33) proxy-error", "client body 33", "client end",
            "trace response.delivered status=400 synthetic=true code=bad-chunk", "ended refused",
        ])
        play.everyInput()
        play.expectNothing()
    }

    /// RFC 9112 §6.3: a response with invalid framing is answered 502 when the client has nothing yet.
    @Test func anUpstreamThatBreaksBeforeItsHeadIsAnswered502() {
        let play = StrictPlaybook(FlowFixtures.get())
        play.expect(Self.opened)
        play.connected()
        play.expect(["trace request.forwarded body=0", "arm responseHead 60s"])
        play.upstreamBroke(code: "bad-status-line", message: "the status line is not HTTP")
        play.expect([
            "trace protocol.error side=upstream code=bad-status-line status=502", "close upstream",
            "client head 502 known(39) proxy-error", "client body 39", "client end",
            "trace response.delivered status=502 synthetic=true code=bad-status-line", "cancel responseHead",
            "ended upstream-broke",
        ])
        play.everyInput()
        play.expectNothing()
    }

    @Test func anUpstreamThatBreaksMidBodyCutsTheClient() {
        let play = StrictPlaybook(FlowFixtures.get())
        play.expect(Self.opened)
        play.connected()
        play.upstreamHead(200, length: .unknown)
        play.upstreamBody("part")
        play.expect([
            "trace request.forwarded body=0", "arm responseHead 60s", "cancel responseHead",
            "trace response.received status=200", "client head 200 unknown upstream", "client body 4",
        ])
        play.upstreamBroke(code: "bad-chunk", message: "chunk size is not hex")
        play.expect([
            "trace protocol.error side=upstream code=bad-chunk status=502", "close upstream", "break close-after-flush",
            "ended upstream-broke",
        ])
        play.everyInput()
        play.expectNothing()
    }

    /// RFC 9110 §7.8: an upgrade answered 101 turns the connection into a tunnel; the upstream is
    /// kept (not released to the pool) for it.
    @Test func anUpgradeAnswered101IsTunnelled() {
        let play = StrictPlaybook(
            FlowFixtures.request(
                "GET", "http://api.test/ws", headers: [("Connection", "Upgrade"), ("Upgrade", "websocket")],
                kind: .upgrade))
        play.expect(["trace request.received", "open http://api.test:80", "send head GET /ws upgrade", "send end"])
        play.connected()
        play.expect(["trace request.forwarded body=0", "arm responseHead 60s"])
        play.upstreamHead(101, [("Upgrade", "websocket")], length: .none)
        play.expect(["cancel responseHead", "trace response.received status=101", "client head 101 none upstream"])
        play.upstreamEnd()
        play.expect(["client end", "trace response.delivered status=101 body=0", "ended tunnelled"])
        play.everyInput()
        play.expectNothing()
    }
}
