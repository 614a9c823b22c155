import FaultlineFlow
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace
import Synchronization
import Testing

/// What the core reports beyond the exchange: flow stages for rules and holds that wait for them,
/// and the lineage tracker's steps for an auth profile.
@Suite struct ObserverAndLineageTests {
    /// A rule waiting for a stage makes every flow report each of its stages, where it happens.
    @Test func stagesAreObservedWhereTheyHappen() {
        let play = StrictPlaybook(
            FlowFixtures.get(),
            rules: #"{ name: "later", match: { path: "/none" }, when: { after: "business.delivered" } }"#)
        play.expect(
            ["decide request", "trace request.received role=business", "observed business.received"] + Lines.sendGet)
        play.connected()
        play.expect(Lines.forwarded() + ["observed business.forwarded"])
        play.upstreamHead(200, length: .known(0))
        play.expect(Lines.responded() + ["observed business.responded", "client head 200 known(0) upstream"])
        play.upstreamEnd()
        play.expect([
            "client end", "trace response.delivered status=200 body=0", "observed business.delivered",
            "release upstream",
            "ended finished",
        ])
    }

    /// Each rule that fired on a flow hears of its delivery (`delivered:<rule>`), after the
    /// client has the whole response; a rule that did not fire does not.
    @Test func theDeliveryOfAFlowIsEachFiredRulesEvent() {
        let play = StrictPlaybook(
            FlowFixtures.get(),
            rules: #"""
                { name: "seen", phase: "response", actions: [{ delay: 0 }] },
                { name: "other", match: { path: "/none" }, phase: "response", actions: [{ delay: 0 }] },
                { name: "later", match: { path: "/none" }, when: { after: "delivered:seen" } }
                """#)
        play.expect(
            ["decide request", "trace request.received role=business", "observed business.received"] + Lines.sendGet)
        play.connected()
        play.expect(Lines.forwarded() + ["observed business.forwarded"])
        play.upstreamHead(200, length: .known(0))
        play.expect(
            Lines.respondedByRules() + Lines.fired("seen", phase: "response")
                + ["observed business.responded", "client head 200 known(0) upstream"])
        play.upstreamEnd()
        play.expect([
            "client end", "trace response.delivered status=200 body=0", "observed business.delivered",
            "observed delivered:s/seen", "release upstream", "ended finished",
        ])
    }

    /// A listener outside the rules (a hold waiting for an event) is enough; a rule's answer is
    /// delivered too.
    @Test func anExternalListenerHearsAnAnsweredFlow() {
        let trace = try! TraceRecorder(output: .memory, flushInterval: .zero)
        let policy = FlowPolicy(
            ruleSet: FlowFixtures.ruleSet(#"{ name: "r", actions: [{ respond: { status: 204 } }] }"#)
        ) {
            trace.fingerprint($0)
        }
        policy.externalEventListeners.store(1, ordering: .relaxed)
        let play = StrictPlaybook(FlowFixtures.get(), policy: policy)
        play.expect(
            Lines.decidedBusiness + Lines.fired("r") + [
                "observed business.received", "client head 204 known(0) rule", "client end",
                "trace response.delivered status=204 synthetic=true body=0", "observed business.delivered",
                "observed delivered:s/r", "ended answered",
            ])
    }

    /// With a profile, the tracker hears that a login went upstream and what its response issued.
    @Test func aLoginStepsItsLineage() {
        let body = #"{"access_token":"t1"}"#
        let play = StrictPlaybook(
            FlowFixtures.post("http://api.test/oauth/token", length: 3), rules: "", profile: FlowFixtures.loginProfile)
        play.expect([
            "decide request", "trace request.received role=login", "open http://api.test:80",
            "send head POST /oauth/token known(3)",
        ])
        play.requestBody("a=b")
        play.requestEnd()
        play.connected()
        play.expect(["send body 3", "send end"] + Lines.forwarded(body: 3) + ["lineage requestSent role=login"])
        play.upstreamHead(200, [("Content-Type", "application/json")], length: .known(Int64(body.utf8.count)))
        play.upstreamBody(body)
        play.upstreamEnd()
        play.expect(
            Lines.responded() + [
                "client head 200 known(21) upstream", "client body 21", "client end",
                "trace response.delivered status=200 body=21",
                "lineage responseCompleted role=login status=200 body=21",
                "release upstream", "ended finished",
            ])
    }

    /// A retry on a fresh connection traces the forwarding again, and nothing else: the lineage
    /// and the observers heard it once.
    @Test func aRetriedLoginStepsItsLineageOnce() {
        let play = StrictPlaybook(
            FlowFixtures.request("POST", "http://api.test/oauth/token"),
            rules: #"{ name: "later", match: { path: "/none" }, when: { after: "login.delivered" } }"#,
            profile: FlowFixtures.loginProfile)
        play.expect([
            "decide request", "trace request.received role=login", "observed login.received", "open http://api.test:80",
            "send head POST /oauth/token", "send end",
        ])
        play.connected(reused: true)
        play.expect(Lines.forwarded() + ["lineage requestSent role=login", "observed login.forwarded"])
        play.connected(reused: false)
        play.expect(Lines.forwarded())
    }
}
