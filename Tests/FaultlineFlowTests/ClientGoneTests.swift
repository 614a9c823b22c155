import FaultlineFlow
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace
import Testing

/// A client that goes away: while its flow is held (either phase), mid-response, or delayed.
/// The flow says so once (`flow.aborted`), undoes what it registered, and then nothing more goes
/// upstream or to the client, whatever arrives.
@Suite struct ClientGoneTests {
    @Test func aClientThatLeavesWhileItsRequestIsHeld() {
        let play = StrictPlaybook(
            FlowFixtures.post(length: 2), rules: #"{ name: "h", actions: [{ hold: { name: "gate", timeout: 30 } }] }"#)
        play.expect(
            Lines.decidedBusiness + Lines.fired("h") + [
                "hold gate (request)", "arm holdDeadline 30s",
                "trace hold.started name=gate phase=request timeout_s=30",
            ])
        play.requestBody("o")
        play.clientGone("client-closed")
        play.expect([
            "trace hold.ended name=gate outcome=client-gone ended_by=client-gone", "unregister hold",
            "trace flow.aborted reason=client-closed", "cancel holdDeadline", "ended client-gone",
        ])
        play.everyInput()
        play.expectNothing()
        #expect(play.requestHeads.isEmpty, "nothing ever went upstream")
    }

    @Test func aClientThatLeavesWhileItsResponseIsHeld() {
        let play = HoldTests.heldResponse(
            #"{ name: "late" }"#, ["hold late (response)", "trace hold.started name=late phase=response"])
        play.clientGone("client-reset")
        play.expect([
            "trace hold.ended name=late outcome=client-gone ended_by=client-gone", "unregister hold",
            "trace flow.aborted reason=client-reset", "close upstream", "ended client-gone",
        ])
        play.everyInput()
        play.expectNothing()
        #expect(play.responseHeads.isEmpty, "the client never got a head")
    }

    @Test func aClientThatLeavesMidResponse() {
        let play = StrictPlaybook(FlowFixtures.get())
        play.connected()
        play.upstreamHead(200, length: .known(10))
        play.upstreamBody("part")
        play.expect(
            ["trace request.received"] + Lines.sendGet + Lines.forwarded() + Lines.responded() + [
                "client head 200 known(10) upstream", "client body 4",
            ])
        play.clientGone("client-closed")
        play.expect(["trace flow.aborted reason=client-closed", "close upstream", "ended client-gone"])
        play.everyInput()
        play.expectNothing()
    }

    /// Before the upstream was asked for there is no upstream to close.
    @Test func aClientThatLeavesWhileItsRequestIsDelayed() {
        let play = StrictPlaybook(FlowFixtures.get(), rules: #"{ name: "slow", actions: [{ delay: 4 }] }"#)
        play.expect(Lines.decidedBusiness + Lines.fired("slow") + ["arm delay 4s"])
        play.clientGone("client-closed")
        play.expect(["trace flow.aborted reason=client-closed", "cancel delay", "ended client-gone"])
        play.everyInput()
        play.expectNothing()
    }

    /// Waiting for the response head: the deadline goes with the flow.
    @Test func aClientThatLeavesBeforeTheResponseHead() {
        let play = StrictPlaybook(FlowFixtures.get())
        play.connected()
        play.expect(["trace request.received"] + Lines.sendGet + Lines.forwarded())
        play.clientGone("client-closed")
        play.expect([
            "trace flow.aborted reason=client-closed", "close upstream", "cancel responseHead", "ended client-gone",
        ])
        play.everyInput()
        play.expectNothing()
    }
}
