import FaultlineCore
import FaultlineProxy
import PlaybookSupport
import Testing

/// The session playbooks are strict: each way an expectation can be wrong is caught. Every test
/// here makes the mistake inside `withKnownIssue`, which fails if no issue is recorded, so a
/// playbook that let the mistake through would fail these tests.
@Suite struct PlaybookStrictnessTests {
    static let get = "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n"
    /// What `get` does on a new HTTP/1 connection before the upstream answers.
    static let asked = [Lines.idle, "cancel clientIdle", "connect http://a.test:80"]

    // MARK: HTTP/1

    @Test func anExtraActionFails() {
        var play = Playbook()
        play.client(Self.get)
        withKnownIssue {
            play.expect([Lines.idle, "cancel clientIdle"])
        } matching: {
            $0.says("+ connect http://a.test:80")
        }
    }

    @Test func aMissingActionFails() {
        var play = Playbook()
        play.client(Self.get)
        withKnownIssue {
            play.expect(Self.asked + ["arm responseHead 60s"])
        } matching: {
            $0.says("- arm responseHead 60s")
        }
    }

    @Test func actionsInAnotherOrderFail() {
        var play = Playbook()
        play.client(Self.get)
        withKnownIssue {
            play.expect([Lines.idle, "connect http://a.test:80", "cancel clientIdle"])
        } matching: {
            $0.says("the session's actions differ")
        }
    }

    @Test func aWrongDetailFails() {
        var play = Playbook()
        play.client(Self.get)
        withKnownIssue {
            play.expect([Lines.idle, "cancel clientIdle", "connect http://a.test:80 fresh"])
        } matching: {
            $0.says("+ connect http://a.test:80")
        }
    }

    @Test func expectNothingFailsWhenSomethingHappened() {
        let play = Playbook()
        withKnownIssue {
            play.expectNothing()
        } matching: {
            $0.says("+ \(Lines.idle)")
        }
    }

    /// An expectation consumes what it compared, right or wrong: the next starts afresh.
    @Test func aFailedExpectationStillConsumes() {
        var play = Playbook()
        play.client(Self.get)
        withKnownIssue {
            play.expect([])
        }
        play.expectNothing()
    }

    /// An action the test never expected fails when the playbook goes away, with no `expect`
    /// after it.
    @Test func anUnconsumedActionFails() {
        withKnownIssue {
            var play = Playbook()
            play.client(Self.get)
            play.expect(Self.asked)
            play.inject([.closeUpstream(FlowID(1))])
        } matching: {
            $0.says("the session's last actions were never expected:\n  close upstream")
        }
    }

    @Test func aSessionLeftUnexpectedFails() {
        withKnownIssue {
            let play = Playbook()
            _ = play.trace
        } matching: {
            $0.says("never expected")
        }
    }

    // MARK: HTTP/2

    @Test func anExtraHTTP2ActionFails() throws {
        var play = try HTTP2Playbook()
        play.expect([Lines.idle])
        try play.request("GET", "/")
        withKnownIssue {
            play.expect(["f1 connect http://127.0.0.1:3000"])
        } matching: {
            $0.says("+ cancel clientIdle")
        }
    }

    @Test func aMissingHTTP2ActionFails() throws {
        var play = try HTTP2Playbook()
        play.expect([Lines.idle])
        try play.request("GET", "/")
        withKnownIssue {
            play.expect(["f1 connect http://127.0.0.1:3000", "cancel clientIdle", "f1 arm responseHead 60s"])
        } matching: {
            $0.says("- f1 arm responseHead 60s")
        }
    }

    @Test func anHTTP2ActionOfAnotherFlowFails() throws {
        var play = try HTTP2Playbook()
        play.expect([Lines.idle])
        play.inject([.releaseUpstream(FlowID(2))])
        withKnownIssue {
            play.expect(["f1 release upstream"])
        } matching: {
            $0.says("+ f2 release upstream")
        }
    }

    @Test func anUnconsumedHTTP2ActionFails() throws {
        try withKnownIssue {
            var play = try HTTP2Playbook()
            play.expect([Lines.idle])
            try play.request("GET", "/")
        } matching: {
            $0.says("never expected:\n  f1 connect http://127.0.0.1:3000\n  cancel clientIdle")
        }
    }
}

/// The unordered form is strict about everything but the order of the groups.
@Suite struct UnorderedGroupsTests {
    static let opened = [Lines.idle, "f1 connect http://127.0.0.1:3000", "cancel clientIdle"]

    static func twoActions() throws -> HTTP2Playbook {
        var play = try HTTP2Playbook()
        play.expect([Lines.idle])
        play.inject([.closeUpstream(FlowID(2)), .releaseUpstream(FlowID(1)), .closeUpstream(FlowID(1))])
        return play
    }

    @Test func groupsInEitherOrderPass() throws {
        try Self.twoActions().expect(
            [], thenInAnyOrder: [["f1 release upstream", "f1 close upstream"], ["f2 close upstream"]])
        try Self.twoActions().expect(
            [], thenInAnyOrder: [["f2 close upstream"], ["f1 release upstream", "f1 close upstream"]])
    }

    @Test func anExtraActionAmongGroupsFails() throws {
        let play = try Self.twoActions()
        withKnownIssue {
            play.expect([], thenInAnyOrder: [["f1 release upstream", "f1 close upstream"]])
        } matching: {
            $0.says("+ f2 close upstream")
        }
    }

    @Test func aGroupInAnotherOrderFails() throws {
        let play = try Self.twoActions()
        withKnownIssue {
            play.expect([], thenInAnyOrder: [["f1 close upstream", "f1 release upstream"], ["f2 close upstream"]])
        } matching: {
            $0.says("the session's actions differ")
        }
    }
}
