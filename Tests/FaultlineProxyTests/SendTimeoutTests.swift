import FaultlineCore
import FaultlineProxy
import FaultlineTrace
import Testing

/// What a session does when the driver's send timeout runs out (`ClientSession.sendTimedOut`,
/// ClientConnectionHandler+SendTimeout.swift): the flows in flight end as `flow.aborted` with
/// reason `send-timeout`, their upstreams close, and the session is closed with that reason;
/// the driver closes the socket next. (The clock itself is the driver's:
/// Tests/Integration/test_send_timeout.py.)
@Suite struct SendTimeoutTests {
    @Test func anHTTP1FlowInFlightIsAbortedAndTheSessionCloses() throws {
        var play = Playbook()
        play.client("GET http://a.test/big HTTP/1.1\r\nHost: a.test\r\n\r\n")
        play.connected()
        play.upstream("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\nabc")
        play.sendTimedOut()
        #expect(play.session.isClosed)
        #expect(play.session.closeReason == "send-timeout")
        let aborted = try #require(try play.events().first { $0.kind.rawValue == "flow.aborted" })
        #expect(aborted.string("reason") == "send-timeout")
        play.clientClosed()
        #expect(play.session.closeReason == "send-timeout", "the close that follows keeps the reason")
        play.expect([
            Lines.idle, "cancel clientIdle", "connect http://a.test:80", "arm responseHead 60s", "cancel responseHead",
            "close upstream", Lines.idle,
        ])
    }

    /// Between requests nothing is in flight: only the reason changes.
    @Test func anIdleHTTP1SessionOnlyCloses() throws {
        var play = Playbook()
        play.sendTimedOut()
        #expect(play.session.isClosed)
        #expect(play.session.closeReason == "send-timeout")
        #expect(try !play.events().contains { $0.kind.rawValue == "flow.aborted" })
        play.expect([Lines.idle])
    }

    @Test func everyHTTP2StreamsFlowIsAbortedAndTheSessionCloses() throws {
        var play = try HTTP2Playbook()
        let first = try play.request("GET", "/a")
        let second = try play.request("GET", "/b")
        let firstFlow = try play.flow(ofStream: first)
        let secondFlow = try play.flow(ofStream: second)
        play.connected(flow: firstFlow)
        play.sendTimedOut()
        #expect(play.sessionIsClosed)
        #expect(play.closeReason == "send-timeout")
        for flow in [firstFlow, secondFlow] {
            let aborted = try #require(try play.events(of: flow).first { $0.kind.rawValue == "flow.aborted" })
            #expect(aborted.string("reason") == "send-timeout")
        }
        #expect(play.upstreams[firstFlow]?.closed == true)
        play.clientClosed()
        #expect(play.closeReason == "send-timeout")
        play.expect([
            Lines.idle, "f1 connect http://127.0.0.1:3000", "cancel clientIdle", "f2 connect http://127.0.0.1:3000",
            "f1 arm responseHead 60s", "f1 close upstream", "f1 cancel responseHead", "f2 close upstream",
        ])
    }
}
