import FaultlineFlow
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace
import Testing

/// Holds in both phases and every way one ends: the control API, the awaited event, the deadline
/// with each `onTimeout`, a failure.
@Suite struct HoldTests {
    static let held = Lines.decidedBusiness + Lines.fired("h")

    @Test func aHeldRequestGoesUpstreamWithItsBodyOnlyWhenReleased() {
        let play = StrictPlaybook(
            FlowFixtures.post(length: 2), rules: #"{ name: "h", actions: [{ hold: { name: "gate" } }] }"#)
        play.expect(Self.held + ["hold gate (request)", "trace hold.started name=gate phase=request"])
        #expect(play.holds.first?.summary == "POST http://api.test/jobs")
        #expect(play.machine?.isHeld == true)
        play.requestBody("ok")
        play.requestEnd()
        play.expectNothing()
        #expect(play.machine?.bufferedRequestBytes == 2)
        play.holdEnded(.release(nil))
        play.expect([
            "trace hold.ended name=gate outcome=released ended_by=control", "open http://api.test:80",
            "send head POST /jobs known(2)", "send body 2", "send end",
        ])
        #expect(play.machine?.isHeld == false)
        play.connected()
        play.expect(Lines.forwarded(body: 2))
    }

    @Test func aHoldReleasedByItsEventSaysWhich() {
        let play = StrictPlaybook(
            FlowFixtures.get(),
            rules: #"""
                { name: "h", match: { path: "/v1/me" }, actions: [{ hold: { name: "gate", release: { on: "rule:other" } } }] },
                { name: "other", match: { path: "/other" }, actions: [{ delay: 1 }] }
                """#)
        play.expect(
            Self.held + [
                "hold gate (request) on=rule:other", "trace hold.started name=gate phase=request release_on=rule:other",
            ])
        play.holdEnded(.release(nil), by: .event("rule:other"))
        play.expect(
            ["trace hold.ended name=gate outcome=released ended_by=event release_on=rule:other"] + Lines.sendGet)
    }

    @Test func aDeadlineThatReleasesSendsTheRequestOn() {
        let play = StrictPlaybook(
            FlowFixtures.get(), rules: #"{ name: "h", actions: [{ hold: { name: "gate", timeout: 2 } }] }"#)
        play.expect(
            Self.held + [
                "hold gate (request)", "arm holdDeadline 2s", "trace hold.started name=gate phase=request timeout_s=2",
            ])
        play.fire(.holdDeadline)
        play.expect(
            ["unregister hold", "trace hold.ended name=gate outcome=timed-out ended_by=deadline applied=release"]
                + Lines.sendGet)
    }

    @Test func aDeadlineWithAStatusAnswers() {
        let play = StrictPlaybook(
            FlowFixtures.get(),
            rules: #"{ name: "h", actions: [{ hold: { name: "gate", timeout: 2, onTimeout: { status: 504 } } }] }"#)
        play.expect(
            Self.held + [
                "hold gate (request)", "arm holdDeadline 2s", "trace hold.started name=gate phase=request timeout_s=2",
            ])
        play.fire(.holdDeadline)
        play.expect([
            "unregister hold",
            "trace hold.ended name=gate outcome=timed-out ended_by=deadline applied=status status=504",
            "client head 504 known(0) rule", "client end", "trace response.delivered status=504 synthetic=true body=0",
            "ended answered",
        ])
        #expect(play.responseHeads[0].reason == "Gateway Timeout")
        play.everyInput()
        play.expectNothing()
    }

    @Test func aDeadlineThatResetsAborts() {
        let play = StrictPlaybook(
            FlowFixtures.get(),
            rules: #"{ name: "h", actions: [{ hold: { name: "gate", timeout: 0.5, onTimeout: "reset" } }] }"#)
        play.expect(
            Self.held + [
                "hold gate (request)", "arm holdDeadline 0.5s",
                "trace hold.started name=gate phase=request timeout_s=0.5",
            ])
        play.fire(.holdDeadline)
        play.expect([
            "unregister hold", "trace hold.ended name=gate outcome=timed-out ended_by=deadline applied=reset",
            "break reset",
            "ended aborted",
        ])
        play.everyInput()
        play.expectNothing()
    }

    /// Failing a hold resets the client; its deadline is cancelled, and the driver (which ended it)
    /// needs no `unregister hold`.
    @Test func aFailedHoldAborts() {
        let play = StrictPlaybook(
            FlowFixtures.get(), rules: #"{ name: "h", actions: [{ hold: { name: "gate", timeout: 9 } }] }"#)
        play.expect(
            Self.held + [
                "hold gate (request)", "arm holdDeadline 9s", "trace hold.started name=gate phase=request timeout_s=9",
            ])
        play.holdEnded(.fail)
        play.expect([
            "cancel holdDeadline", "trace hold.ended name=gate outcome=failed ended_by=control", "break reset",
            "ended aborted",
        ])
        play.everyInput()
        play.expectNothing()
    }

    /// A hold with a delay: the delay starts when the hold ends.
    @Test func aHoldThenADelay() {
        let play = StrictPlaybook(
            FlowFixtures.get(), rules: #"{ name: "h", actions: [{ hold: { name: "gate" } }, { delay: 1 }] }"#)
        play.expect(Self.held + ["hold gate (request)", "trace hold.started name=gate phase=request"])
        play.holdEnded(.release(nil))
        play.expect(["trace hold.ended name=gate outcome=released ended_by=control", "arm delay 1s"])
        play.fire(.delay)
        play.expect(Lines.sendGet)
    }

    // MARK: Response phase

    /// A GET whose response (head and 4 body bytes, not yet ended) is held by `hold`; `lines` are
    /// the hold's own actions.
    static func heldResponse(_ hold: String, _ lines: [String], sourceLocation: SourceLocation = #_sourceLocation)
        -> StrictPlaybook
    {
        let play = StrictPlaybook(
            FlowFixtures.get(), rules: #"{ name: "h", phase: "response", actions: [{ hold: \#(hold) }] }"#,
            sourceLocation: sourceLocation)
        play.expect(["trace request.received role=business"] + Lines.sendGet, sourceLocation: sourceLocation)
        play.connected(sourceLocation: sourceLocation)
        play.upstreamHead(200, length: .known(4), sourceLocation: sourceLocation)
        play.upstreamBody("late", sourceLocation: sourceLocation)
        play.expect(
            Lines.forwarded() + Lines.respondedByRules() + Lines.fired("h", phase: "response") + lines,
            sourceLocation: sourceLocation)
        return play
    }

    @Test func aHeldResponseReachesTheClientWhenReleased() {
        let play = Self.heldResponse(
            #"{ name: "late" }"#, ["hold late (response)", "trace hold.started name=late phase=response"])
        play.upstreamEnd()
        play.expectNothing()
        #expect(play.machine?.isHeld == true)
        #expect(play.machine?.bufferedResponseBytes == 4)
        play.holdEnded(.release(nil))
        play.expect(
            [
                "trace hold.ended name=late outcome=released ended_by=control", "client head 200 known(4) upstream",
                "client body 4",
            ]
                + Lines.delivered(body: 4))
        #expect(play.clientText == "late")
    }

    /// Released by its event before the upstream is done: the body streams on from there.
    @Test func aHeldResponseReleasedByItsEventStreamsOn() {
        let play = Self.heldResponse(
            #"{ name: "late", release: { on: "mark:go" } }"#,
            ["hold late (response) on=mark:go", "trace hold.started name=late phase=response release_on=mark:go"])
        play.holdEnded(.release(nil), by: .event("mark:go"))
        play.expect([
            "trace hold.ended name=late outcome=released ended_by=event release_on=mark:go",
            "client head 200 known(4) upstream", "client body 4",
        ])
        play.upstreamEnd()
        play.expect(Lines.delivered(body: 4))
    }

    /// The replacement goes out at once; the rest of the upstream's body is read and dropped.
    @Test func aHeldResponseReleasedWithAStatusIsReplaced() {
        let play = Self.heldResponse(
            #"{ name: "late" }"#, ["hold late (response)", "trace hold.started name=late phase=response"])
        play.holdEnded(.release(SyntheticResponse(status: 503, body: Array("busy".utf8))))
        play.expect([
            "trace hold.ended name=late outcome=released-with-response ended_by=control",
            "client head 503 known(4) rule",
            "client body 4", "client end", "trace response.delivered status=503 body=4",
        ])
        play.upstreamBody("more")
        play.expectNothing()
        play.upstreamEnd()
        play.expect(["release upstream", "ended answered"])
        #expect(play.clientText == "busy")
    }

    @Test func aHeldResponsesDeadlineCanRelease() {
        let play = Self.heldResponse(
            #"{ name: "late", timeout: 3 }"#,
            ["hold late (response)", "arm holdDeadline 3s", "trace hold.started name=late phase=response timeout_s=3"])
        play.fire(.holdDeadline)
        play.expect([
            "unregister hold", "trace hold.ended name=late outcome=timed-out ended_by=deadline applied=release",
            "client head 200 known(4) upstream", "client body 4",
        ])
    }

    @Test func aHeldResponsesDeadlineCanAnswerAStatus() {
        let play = Self.heldResponse(
            #"{ name: "late", timeout: 3, onTimeout: { status: 503 } }"#,
            ["hold late (response)", "arm holdDeadline 3s", "trace hold.started name=late phase=response timeout_s=3"])
        play.upstreamEnd()
        play.fire(.holdDeadline)
        play.expect([
            "unregister hold",
            "trace hold.ended name=late outcome=timed-out ended_by=deadline applied=status status=503",
            "client head 503 known(0) rule", "client end", "trace response.delivered status=503 body=0",
            "release upstream",
            "ended answered",
        ])
    }

    @Test func aHeldResponsesDeadlineCanReset() {
        let play = Self.heldResponse(
            #"{ name: "late", timeout: 3, onTimeout: "reset" }"#,
            ["hold late (response)", "arm holdDeadline 3s", "trace hold.started name=late phase=response timeout_s=3"])
        play.fire(.holdDeadline)
        play.expect([
            "unregister hold", "trace hold.ended name=late outcome=timed-out ended_by=deadline applied=reset",
            "close upstream", "break reset", "ended aborted",
        ])
        play.everyInput()
        play.expectNothing()
    }

    @Test func aFailedResponseHoldAbortsBothSides() {
        let play = Self.heldResponse(
            #"{ name: "late" }"#, ["hold late (response)", "trace hold.started name=late phase=response"])
        play.holdEnded(.fail)
        play.expect([
            "trace hold.ended name=late outcome=failed ended_by=control", "close upstream", "break reset",
            "ended aborted",
        ])
        play.everyInput()
        play.expectNothing()
    }

    /// A hold with a rewrite: the rewrite applies on release.
    @Test func aHeldResponseIsRewrittenOnRelease() {
        let play = StrictPlaybook(
            FlowFixtures.get(),
            rules:
                #"{ name: "h", phase: "response", actions: [{ hold: { name: "late" } }, { rewrite: { status: 418 } }] }"#
        )
        play.connected()
        play.upstreamHead(200, length: .known(0))
        play.upstreamEnd()
        play.expect(
            ["trace request.received role=business"] + Lines.sendGet + Lines.forwarded() + Lines.respondedByRules()
                + Lines.fired("h", phase: "response") + [
                    "hold late (response)", "trace hold.started name=late phase=response",
                ])
        play.holdEnded(.release(nil))
        play.expect(
            ["trace hold.ended name=late outcome=released ended_by=control", "client head 418 known(0) upstream"]
                + Lines.delivered(418, body: 0))
        #expect(play.responseHeads[0].reason == "I'm a teapot")
    }

    /// The upstream breaks while the response is held: the client, who has nothing yet, gets a
    /// 502, and `hold.ended` says the flow ended as upstream-broke before the hold is unregistered.
    @Test func anUpstreamThatBreaksWhileTheResponseIsHeld() {
        let play = Self.heldResponse(
            #"{ name: "late" }"#, ["hold late (response)", "trace hold.started name=late phase=response"])
        play.upstreamBroke(code: "truncated-response", message: "closed in the middle of the response")
        play.expect([
            "trace protocol.error side=upstream code=truncated-response status=502", "close upstream",
            "client head 502 known(48) proxy-error", "client body 48", "client end",
            "trace response.delivered status=502 synthetic=true code=truncated-response",
            "trace hold.ended name=late outcome=upstream-broke ended_by=upstream-broke", "unregister hold",
            "ended upstream-broke",
        ])
        play.everyInput()
        play.expectNothing()
    }
}
