import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace
import PlaybookSupport
import Testing

/// The playbook itself is strict: each way an expectation can be wrong is caught. Every test here
/// makes the mistake inside `withKnownIssue`, which fails if no issue is recorded, so a playbook
/// that let the mistake through would fail these tests.
@Suite struct StrictPlaybookTests {
    static let opened = ["trace request.received", "open http://api.test:80", "send head GET /v1/me", "send end"]

    @Test func actionsInAnotherOrderFail() {
        let play = StrictPlaybook(FlowFixtures.get())
        withKnownIssue {
            play.expect(["open http://api.test:80", "trace request.received", "send head GET /v1/me", "send end"])
        } matching: {
            $0.says("the flow's actions differ")
        }
    }

    @Test func aMissingActionFails() {
        let play = StrictPlaybook(FlowFixtures.get())
        withKnownIssue {
            play.expect(["trace request.received", "open http://api.test:80", "send head GET /v1/me"])
        } matching: {
            $0.says("+ send end")
        }
    }

    @Test func anUnexpectedActionFails() {
        let play = StrictPlaybook(FlowFixtures.get())
        withKnownIssue {
            play.expect(Self.opened + ["arm responseHead 60s"])
        } matching: {
            $0.says("- arm responseHead 60s")
        }
    }

    @Test func aWrongDetailFails() {
        let play = StrictPlaybook(FlowFixtures.get())
        withKnownIssue {
            play.expect(["trace request.received", "open http://api.test:8080", "send head GET /v1/me", "send end"])
        } matching: {
            $0.says("+ open http://api.test:80")
        }
    }

    @Test func expectNothingFailsWhenSomethingHappened() {
        let play = StrictPlaybook(FlowFixtures.get())
        withKnownIssue {
            play.expectNothing()
        } matching: {
            $0.says("+ trace request.received")
        }
    }

    /// An expectation consumes what it compared, right or wrong: the next starts afresh.
    @Test func aFailedExpectationStillConsumes() {
        let play = StrictPlaybook(FlowFixtures.get())
        withKnownIssue {
            play.expect([])
        }
        play.expectNothing()
    }

    @Test func anActionOfAnotherFlowFails() {
        let play = StrictPlaybook(FlowFixtures.get())
        play.expect(Self.opened)
        play.inject([.closeUpstream(FlowID(9))])
        withKnownIssue {
            play.expect(["close upstream"])
        } matching: {
            $0.says("+ close upstream [f9]")
        }
    }

    @Test func anActionAfterTheEndFails() {
        let play = StrictPlaybook(FlowFixtures.get())
        play.upstreamFailed(.connectRefused("api.test:80", "refused"))
        let actions = play.expect([
            "trace request.received", "open http://api.test:80", "send head GET /v1/me", "send end",
            "trace upstream.error code=connect-failed status=502", "close upstream",
            "client head 502 known(50) proxy-error",
            "client body 50", "client end", "trace response.delivered status=502 synthetic=true code=connect-failed",
            "ended failed",
        ])
        #expect(actions.count == 11)
        withKnownIssue {
            play.inject([.releaseUpstream(play.id)])
        } matching: {
            $0.says("inject produced 'release upstream' after the flow ended")
        }
        play.expect(["release upstream"])
    }

    /// Actions nobody expected fail the test when the playbook goes away.
    @Test func actionsLeftUnexpectedFail() {
        withKnownIssue {
            let play = StrictPlaybook(FlowFixtures.get())
            _ = play.id
        } matching: {
            $0.says("the flow's last actions were never expected")
        }
    }

    @Test func theDiffMarksWhatIsMissingAndWhatCameInstead() {
        #expect(
            LineDiff.diff(["a", "b", "c"], ["b", "a", "c", "d"]).split(separator: "\n") == [
                "  + b", "    a", "  - b", "    c", "  + d",
            ])
    }
}
