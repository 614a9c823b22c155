import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace
import Testing

/// Response-phase rule actions, each as the whole sequence of a flow: respond, rewrite, cookies,
/// delay, throttle and the transport faults.
@Suite struct ResponseActionTests {
    /// A GET under `rules`, forwarded on a connected upstream, its actions so far expected.
    static func forwardedGet(_ rules: String, sourceLocation: SourceLocation = #_sourceLocation) -> StrictPlaybook {
        let play = StrictPlaybook(FlowFixtures.get(), rules: rules, sourceLocation: sourceLocation)
        play.expect(["trace request.received role=business"] + Lines.sendGet, sourceLocation: sourceLocation)
        play.connected(sourceLocation: sourceLocation)
        play.expect(Lines.forwarded(), sourceLocation: sourceLocation)
        return play
    }

    // MARK: Respond and rewrite

    /// The replacement goes out at once; the upstream's body is read and dropped so its connection
    /// can be reused.
    @Test func respondReplacesTheUpstreamResponse() {
        let play = Self.forwardedGet(
            #"{ name: "r", phase: "response", match: { status: "5xx" }, actions: [{ respond: { status: 200, body: "fine" } }] }"#
        )
        play.upstreamHead(500, length: .known(6))
        play.expect(
            Lines.respondedByRules(500) + Lines.fired("r", phase: "response") + [
                "client head 200 known(4) rule", "client body 4", "client end",
                "trace response.delivered status=200 body=4",
            ])
        play.upstreamBody("broken")
        play.expectNothing()
        play.upstreamEnd()
        play.expect(["release upstream", "ended answered"])
        #expect(play.clientText == "fine")
        #expect(play.responseHeads[0].reason == "OK")
    }

    /// A new status gets its standard reason phrase; headers change; the body streams as it comes.
    @Test func rewriteChangesStatusAndHeaders() {
        let play = Self.forwardedGet(
            #"""
            { name: "rw", phase: "response",
              actions: [{ rewrite: { status: 503, headers: { set: { "X-Env": "test" }, add: { "X-Tag": "t" }, remove: ["Server"] } } }] }
            """#)
        play.upstreamHead(200, [("Server", "origin"), ("X-Env", "prod")], length: .known(2))
        play.expect(
            Lines.respondedByRules() + Lines.fired("rw", phase: "response") + ["client head 503 known(2) upstream"])
        play.upstreamBody("ok")
        play.upstreamEnd()
        play.expect(["client body 2"] + Lines.delivered(503, body: 2))
        let head = play.responseHeads[0]
        #expect(head.reason == "Service Unavailable")
        #expect(head.headers.values(name: "x-env") == ["test"])
        #expect(head.headers.values(name: "x-tag") == ["t"])
        #expect(!head.headers.contains(name: "server"))
    }

    /// A new body is framed by its own length; the upstream's is dropped.
    @Test func rewriteReplacesTheBody() {
        let play = Self.forwardedGet(
            #"{ name: "rw", phase: "response", actions: [{ rewrite: { body: "replaced" } }] }"#)
        play.upstreamHead(200, [("Content-Length", "2")], length: .known(2))
        play.expect(
            Lines.respondedByRules() + Lines.fired("rw", phase: "response") + [
                "client head 200 known(8) upstream", "client body 8", "client end",
                "trace response.delivered status=200 body=8",
            ])
        #expect(!play.responseHeads[0].headers.contains(name: "content-length"), "the framing adds its own")
        play.upstreamBody("ok")
        play.upstreamEnd()
        play.expect(["release upstream", "ended finished"])
        #expect(play.clientText == "replaced")
    }

    /// A JSON edit waits for the whole body, then sends the edited text, every other byte kept.
    @Test func jsonSetEditsTheWholeBodyAndKeepsBigIntegers() {
        let body = #"{"id":12345678901234567890,"plan":"free"}"#
        let play = Self.forwardedGet(
            #"{ name: "js", phase: "response", actions: [{ rewrite: { jsonSet: { "/plan": "pro" } } }] }"#)
        play.upstreamHead(200, [("Content-Type", "application/json")], length: .known(Int64(body.utf8.count)))
        play.expect(Lines.respondedByRules() + Lines.fired("js", phase: "response"))
        play.upstreamBody(String(body.prefix(20)))
        play.upstreamBody(String(body.dropFirst(20)))
        play.expectNothing()
        play.upstreamEnd()
        play.expect(["client head 200 known(40) upstream", "client body 40"] + Lines.delivered(body: 40))
        #expect(play.clientText == #"{"id":12345678901234567890,"plan":"pro"}"#)
    }

    // MARK: Cookies

    @Test func setCookieAddsALiteralAndStripCookieRemovesOne() {
        let play = Self.forwardedGet(
            #"{ name: "c", phase: "response", actions: [{ stripCookie: "session" }, { setCookie: "flag=1; Path=/" }] }"#
        )
        play.upstreamHead(200, [("Set-Cookie", "session=abc"), ("Set-Cookie", "theme=dark")], length: .known(0))
        play.upstreamEnd()
        play.expect(
            Lines.respondedByRules() + Lines.fired("c", phase: "response") + ["client head 200 known(0) upstream"]
                + Lines.delivered(body: 0))
        #expect(play.responseHeads[0].headers.values(name: "set-cookie") == ["theme=dark", "flag=1; Path=/"])
    }

    /// `replay` re-sends the last Set-Cookie any flow of the policy saw for that cookie.
    @Test func setCookieReplaysAnEarlierFlowsCookie() {
        let trace = try! TraceRecorder(output: .memory, flushInterval: .zero)
        let policy = FlowPolicy(
            ruleSet: FlowFixtures.ruleSet(
                #"{ name: "again", phase: "response", match: { path: "/later" }, actions: [{ setCookie: { replay: "session" } }] }"#
            )
        ) { trace.fingerprint($0) }
        let first = StrictPlaybook(FlowFixtures.get(), policy: policy)
        first.connected()
        first.upstreamHead(200, [("Set-Cookie", "session=abc; Path=/")], length: .known(0))
        first.upstreamEnd()
        let firstLines: [String] = ["trace request.received role=business"] + Lines.sendGet + Lines.forwarded()
        first.expect(
            firstLines + Lines.respondedByRules() + ["client head 200 known(0) upstream"] + Lines.delivered(body: 0))
        let later = StrictPlaybook(FlowFixtures.get("http://api.test/later"), policy: policy, id: FlowID(2))
        later.connected()
        later.upstreamHead(200, length: .known(0))
        later.upstreamEnd()
        let sent: [String] = [
            "trace request.received role=business", "open http://api.test:80", "send head GET /later", "send end",
        ]
        let responded: [String] = Lines.respondedByRules() + Lines.fired("again", phase: "response")
        later.expect(
            sent + Lines.forwarded() + responded + ["client head 200 known(0) upstream"] + Lines.delivered(body: 0))
        #expect(later.responseHeads[0].headers.values(name: "set-cookie") == ["session=abc; Path=/"])
    }

    // MARK: Delay and throttle

    /// The response waits for its delay with what arrived meanwhile, then streams.
    @Test func aResponseDelayKeepsTheResponseUntilItsTimer() {
        let play = Self.forwardedGet(#"{ name: "slow", phase: "response", actions: [{ delay: 2 }] }"#)
        play.upstreamHead(200, length: .known(4))
        play.expect(Lines.respondedByRules() + Lines.fired("slow", phase: "response") + ["arm delay 2s"])
        play.upstreamBody("ok")
        play.expectNothing()
        #expect(play.machine?.bufferedResponseBytes == 2)
        play.fire(.delay)
        play.expect(["client head 200 known(4) upstream", "client body 2"])
        play.upstreamBody("ok")
        play.upstreamEnd()
        play.expect(["client body 2"] + Lines.delivered(body: 4))
    }

    /// A delayed flow whose client leaves: the timer is cancelled with the flow.
    @Test func aDelayedResponseWhoseClientLeavesCancelsItsTimer() {
        let play = Self.forwardedGet(#"{ name: "slow", phase: "response", actions: [{ delay: 2 }] }"#)
        play.upstreamHead(200, length: .known(4))
        play.expect(Lines.respondedByRules() + Lines.fired("slow", phase: "response") + ["arm delay 2s"])
        play.clientGone("client-reset")
        play.expect(["trace flow.aborted reason=client-reset", "close upstream", "cancel delay", "ended client-gone"])
        play.everyInput()
        play.expectNothing()
    }

    @Test func aResponseThrottlePacesTheClientUntilTheFlowEnds() {
        let play = Self.forwardedGet(#"{ name: "t", phase: "response", actions: [{ throttle: 100 }] }"#)
        play.upstreamHead(200, length: .known(2))
        play.upstreamBody("ok")
        play.upstreamEnd()
        play.expect(
            Lines.respondedByRules() + Lines.fired("t", phase: "response") + [
                "client head 200 known(2) upstream", "throttle client 100", "client body 2", "client end",
                "trace response.delivered status=200 body=2", "release upstream", "throttle client off",
                "ended finished",
            ])
    }

    /// Both sides paced: the flow's end stops both (a throttle paces one flow, not the connection
    /// the next flow uses).
    @Test func throttlesOnBothSidesBothStopAtTheEnd() {
        let play = StrictPlaybook(
            FlowFixtures.get(),
            rules:
                #"{ name: "up", actions: [{ throttle: 100 }] }, { name: "down", phase: "response", actions: [{ throttle: 50 }] }"#
        )
        play.expect(
            Lines.decidedBusiness + Lines.fired("up") + ["throttle upstream 100"] + Lines.sendGet)
        play.connected()
        play.upstreamHead(200, length: .known(0))
        play.expect(
            Lines.forwarded() + Lines.respondedByRules() + Lines.fired("down", phase: "response") + [
                "client head 200 known(0) upstream", "throttle client 50",
            ])
        play.upstreamEnd()
        play.expect([
            "client end", "trace response.delivered status=200 body=0", "release upstream", "throttle upstream off",
            "throttle client off", "ended finished",
        ])
    }

    // MARK: Faults

    /// A cut after the bytes it allows: `close-mid-body` resets the client, `truncate` closes it
    /// once what is queued is written; a rule's HTTP/2 code rides on the break.
    @Test(arguments: [
        (#"{ kind: "close-mid-body", bytes: 3 }"#, "close-mid-body", "break reset"),
        (#"{ kind: "truncate", bytes: 3, code: "CANCEL" }"#, "truncate", "break close-after-flush code=CANCEL"),
    ])
    func aCutBreaksTheClientAfterItsBytes(fault: String, name: String, breakLine: String) {
        let play = Self.forwardedGet(#"{ name: "f", phase: "response", actions: [{ fault: \#(fault) }] }"#)
        play.upstreamHead(200, length: .known(10))
        play.expect(
            Lines.respondedByRules() + Lines.fired("f", phase: "response") + [
                "trace fault.injected fault=\(name) phase=response", "client head 200 known(10) upstream",
            ])
        play.upstreamBody("hello")
        play.expect(["client body 3", "close upstream", breakLine, "ended aborted"])
        #expect(play.clientText == "hel")
        play.everyInput()
        play.expectNothing()
    }

    /// `close-mid-body` with no bytes: the head goes out, then the reset.
    @Test func closeMidBodyAtZeroBytesResetsAfterTheHead() {
        let play = Self.forwardedGet(#"{ name: "f", phase: "response", actions: [{ fault: "close-mid-body" }] }"#)
        play.upstreamHead(200, length: .known(10))
        play.expect(
            Lines.respondedByRules() + Lines.fired("f", phase: "response") + [
                "trace fault.injected fault=close-mid-body phase=response", "client head 200 known(10) upstream",
                "close upstream", "break reset", "ended aborted",
            ])
        play.everyInput()
        play.expectNothing()
    }

    /// A response-phase fault's HTTP/2 code rides on its break (the cut's code: above).
    @Test func aResponseFaultsCodeRidesOnItsBreak() {
        let play = Self.forwardedGet(
            #"{ name: "f", phase: "response", actions: [{ fault: { kind: "reset", code: "CANCEL" } }] }"#)
        play.upstreamHead(200, length: .known(10))
        play.expect(
            Lines.respondedByRules() + Lines.fired("f", phase: "response") + [
                "trace fault.injected fault=reset phase=response", "close upstream", "break reset code=CANCEL",
                "ended aborted",
            ])
        play.everyInput()
        play.expectNothing()
    }

    /// The same cut after a response delay, with body bytes waiting behind the gate: the cut ends
    /// the flow once, and the waiting bytes are never relayed.
    @Test func closeMidBodyAtZeroBytesAfterADelayEndsOnce() {
        let play = Self.forwardedGet(
            #"{ name: "f", phase: "response", actions: [{ delay: 1 }, { fault: "close-mid-body" }] }"#)
        play.upstreamHead(200, length: .known(10))
        play.expect(
            Lines.respondedByRules() + Lines.fired("f", phase: "response") + [
                "trace fault.injected fault=close-mid-body phase=response", "arm delay 1s",
            ])
        play.upstreamBody("hello")
        play.expectNothing()
        play.fire(.delay)
        play.expect(["client head 200 known(10) upstream", "close upstream", "break reset", "ended aborted"])

    }

    /// `truncate` closes cleanly after its bytes: the client sees less than the framing promised.
    @Test func truncateClosesAfterItsBytes() {
        let play = Self.forwardedGet(
            #"{ name: "f", phase: "response", actions: [{ fault: { kind: "truncate", bytes: 3 } }] }"#)
        play.upstreamHead(200, length: .known(10))
        play.expect(
            Lines.respondedByRules() + Lines.fired("f", phase: "response") + [
                "trace fault.injected fault=truncate phase=response", "client head 200 known(10) upstream",
            ])
        play.upstreamBody("he")
        play.expect(["client body 2"])
        play.upstreamBody("l")  // exactly the bytes allowed: the cut comes with them
        play.expect(["client body 1", "close upstream", "break close-after-flush", "ended aborted"])
        #expect(play.clientText == "hel")
        play.everyInput()
        play.expectNothing()
    }

    /// RFC 9112 §7.1: a chunk-size line that is not hex; the head promises a chunked body.
    @Test func malformedChunkSendsABadChunkAfterTheHead() {
        let play = Self.forwardedGet(#"{ name: "f", phase: "response", actions: [{ fault: "malformed-chunk" }] }"#)
        play.upstreamHead(200, length: .known(10))
        play.expect(
            Lines.respondedByRules() + Lines.fired("f", phase: "response") + [
                "trace fault.injected fault=malformed-chunk phase=response", "client head 200 unknown upstream",
                "close upstream", "break malformed-body", "ended aborted",
            ])
        play.everyInput()
        play.expectNothing()
    }

    @Test func aStalledResponseClosesAtItsDeadline() {
        let play = Self.forwardedGet(
            #"{ name: "f", phase: "response", actions: [{ fault: { kind: "stall", seconds: 3 } }] }"#)
        play.upstreamHead(200, length: .known(2))
        play.expect(
            Lines.respondedByRules() + Lines.fired("f", phase: "response") + [
                "trace fault.injected fault=stall phase=response", "arm stall 3s",
            ])
        play.upstreamBody("ok")
        play.upstreamEnd()
        play.expectNothing()
        play.fire(.stall)
        play.expect(["close upstream", "break close", "ended aborted"])
        #expect(play.clientText.isEmpty)
        play.everyInput()
        play.expectNothing()
    }

    @Test(arguments: [("reset", "break reset"), ("close-before-response", "break close")])
    func aResponsePhaseFaultBreaksBothSides(fault: String, line: String) {
        let play = Self.forwardedGet(#"{ name: "f", phase: "response", actions: [{ fault: "\#(fault)" }] }"#)
        play.upstreamHead(200, length: .known(2))
        play.expect(
            Lines.respondedByRules() + Lines.fired("f", phase: "response") + [
                "trace fault.injected fault=\(fault) phase=response", "close upstream", line, "ended aborted",
            ])
        play.everyInput()
        play.expectNothing()
    }

    // MARK: What response rules see

    /// A response rule may match on the request body: the copy kept since the request phase.
    @Test func aResponseRuleMatchesTheRequestBody() {
        let rule =
            #"{ name: "b", phase: "response", match: { body: { contains: "urgent" } }, actions: [{ rewrite: { headers: { set: { "X-Seen": "yes" } } } }] }"#
        for (body, fires) in [("this is urgent", true), ("this is calm!!", false)] {
            let play = StrictPlaybook(FlowFixtures.post(length: 14), rules: rule)
            play.expect([
                "trace request.received role=business", "open http://api.test:80", "send head POST /jobs known(14)",
            ])
            play.requestBody(body)
            play.requestEnd()
            play.connected()
            play.expect(["send body 14", "send end"] + Lines.forwarded(body: 14))
            play.upstreamHead(200, length: .known(0))
            play.upstreamEnd()
            play.expect(
                Lines.respondedByRules() + (fires ? Lines.fired("b", phase: "response") : []) + [
                    "client head 200 known(0) upstream"
                ]
                    + Lines.delivered(body: 0))
            #expect(play.responseHeads[0].headers.values(name: "x-seen") == (fires ? ["yes"] : []))
        }
    }
}
