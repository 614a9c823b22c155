import FaultlineCore
import FaultlineFlow
import FaultlineRules
import Testing

/// The flow core with no rules engine at all: the test answers its rule questions, as the driver
/// would. What the flow does next depends on the answer alone.
@Suite struct ScriptedDecisionTests {
    /// Flags only: everything a flow may read without asking.
    final class ScriptedRules: FlowRules {
        let bodyLimit = BodyReadLimit.bytes
        let needsRequestBody = false
        let needsRequestBodyAtResponse = false
        let decidesRequests = true
        let decidesResponses = true
        let wantsFlowEvents = false
    }

    static let refusal = FiredRule(
        id: RuleID(scenario: "script", rule: "deny"), file: "script.json5", phase: .request,
        actions: [.respond(SyntheticResponse(status: 401, body: Array("no".utf8)))], transition: nil, hit: 1)

    @Test func aScriptedRefusalAnswersWithoutTheUpstream() {
        let play = StrictPlaybook(FlowFixtures.get(), scripted: ScriptedRules()) { question in
            guard case .request(let view) = question else { return .response(ResponseDecision(fired: [])) }
            #expect(view.path == "/v1/me")
            return .request(
                RequestDecision(
                    role: "refresh", credentials: [], lineage: nil, fired: [Self.refusal], tracksLineage: false))
        }
        play.expect([
            "decide request", "trace request.received role=refresh", "trace rule.fired rule=script/deny phase=request",
            "fired script/deny", "client head 401 known(2) rule", "client body 2", "client end",
            "trace response.delivered status=401 synthetic=true body=2", "ended answered",
        ])
        #expect(play.questions.count == 1)
        #expect(play.clientText == "no")
    }

    @Test func theResponseQuestionCarriesTheHeadAndItsAnswerIsFollowed() {
        let play = StrictPlaybook(FlowFixtures.get(), scripted: ScriptedRules()) { question in
            switch question {
            case .request:
                return .request(.untouched)
            case .response(let view, let setCookies, let reservesLineage):
                #expect(view.status == 503)
                #expect(setCookies == ["a=1"])
                #expect(!reservesLineage)
                let retry = FiredRule(
                    id: RuleID(scenario: "script", rule: "heal"), file: "script.json5", phase: .response,
                    actions: [.respond(SyntheticResponse(status: 200))], transition: nil, hit: 1)
                return .response(ResponseDecision(fired: [retry]))
            }
        }
        play.expect(Lines.decidedBusiness + Lines.sendGet)
        play.connected()
        play.expect(Lines.forwarded())
        play.upstreamHead(503, [("Set-Cookie", "a=1")], length: .known(0))
        play.upstreamEnd()
        play.expect(
            Lines.respondedByRules(503) + [
                "trace rule.fired rule=script/heal phase=response", "fired script/heal",
                "client head 200 known(0) rule", "client end", "trace response.delivered status=200 body=0",
                "release upstream", "ended answered",
            ])
        #expect(play.questions.count == 2)
    }

    @Test func aFlowWhoseClientLeavesWhileItsQuestionIsOutSaysWhatItReceived() {
        let play = StrictPlaybook(FlowFixtures.get(), scripted: ScriptedRules()) { _ in nil }
        play.expect(["decide request"])
        play.clientGone("client-reset")
        play.expect(["trace request.received", "trace flow.aborted reason=client-reset", "ended client-gone"])
        play.decided(.request(.untouched))
        play.expectNothing()
    }
}
