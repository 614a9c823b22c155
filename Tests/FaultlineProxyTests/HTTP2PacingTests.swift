import FaultlineCore
import FaultlineFlow
import FaultlineHTTP2
import FaultlineTrace
import Testing

@testable import FaultlineProxy

/// A response `throttle` on HTTP/2 paces its own stream only (HTTP2StreamPacing.swift): the
/// connection's other streams are answered at once, the paced body leaves one slice per
/// `streamPacing` tick, and its end (or a fault's reset) comes after the last byte.
@Suite struct HTTP2PacingTests {
    /// 500 bytes per second: 10 bytes per 20 ms tick.
    static let rules = ruleSet(
        #"{ rules: [{ name: "slow", phase: "response", match: { path: "/paced" }, actions: [{ throttle: 500 }] }] }"#)
    static let body = String(repeating: "p", count: 45)
    static let answer = "HTTP/1.1 200 OK\r\nContent-Length: 45\r\n\r\n\(body)"

    @Test func aThrottledStreamLeavesSliceBySliceAndTheOthersAtOnce() throws {
        var play = try HTTP2Playbook(ruleSet: Self.rules)
        let paced = try play.request("GET", "/paced")
        let free = try play.request("GET", "/free")
        let pacedFlow = try play.flow(ofStream: paced)
        let freeFlow = try play.flow(ofStream: free)
        play.connected(flow: pacedFlow)
        play.upstream(flow: pacedFlow, Self.answer)
        play.connected(flow: freeFlow)
        play.upstream(flow: freeFlow, Self.answer)

        // The free stream is complete; the paced one has its head and the first slice only.
        #expect(play.stream(free).bodyText == Self.body && play.stream(free).ended)
        #expect(play.stream(paced).status == 200)
        #expect(play.stream(paced).body.count == 10 && !play.stream(paced).ended)
        #expect(play.isArmed(.streamPacing))
        // The driver's connection-wide pacer is never asked for (it would slow every stream).
        play.expect([
            Lines.idle, "f1 connect http://127.0.0.1:3000", "cancel clientIdle", "f2 connect http://127.0.0.1:3000",
            "f1 arm responseHead 60s", "f1 cancel responseHead", "fired test/slow", "arm streamPacing(1) 0.02s",
            "f1 release upstream", "f2 arm responseHead 60s", "f2 cancel responseHead", "f2 release upstream",
        ])

        var seen = [play.stream(paced).body.count]
        while play.isArmed(.streamPacing) {
            play.fire(.streamPacing)
            seen.append(play.stream(paced).body.count)
        }
        #expect(seen == [10, 20, 30, 40, 45])
        #expect(play.stream(paced).bodyText == Self.body)
        #expect(play.stream(paced).ended && play.stream(paced).reset == nil, "END_STREAM after the last byte")
        let delivered = try play.events().filter { $0.kind == .responseDelivered }.compactMap(\.flow)
        #expect(delivered == [pacedFlow, freeFlow] || delivered == [freeFlow, pacedFlow])
        play.expect(["arm streamPacing(1) 0.02s", "arm streamPacing(1) 0.02s", "arm streamPacing(1) 0.02s", Lines.idle])
    }

    @Test func aFaultsResetWaitsForThePacedBytesBeforeIt() throws {
        let rules = ruleSet(
            #"{ rules: [{ name: "slow-cut", phase: "response", match: { path: "/paced" }, "#
                + #"actions: [{ throttle: 500 }, { fault: { kind: "close-mid-body", bytes: 25 } }] }] }"#)
        var play = try HTTP2Playbook(ruleSet: rules)
        let paced = try play.request("GET", "/paced")
        let flow = try play.flow(ofStream: paced)
        play.connected(flow: flow)
        play.upstream(flow: flow, Self.answer)
        #expect(play.stream(paced).body.count == 10 && play.stream(paced).reset == nil)
        while play.isArmed(.streamPacing) { play.fire(.streamPacing) }
        #expect(play.stream(paced).body.count == 25, "the bytes the fault lets through, all of them")
        #expect(play.stream(paced).reset == .internalError, "then RST_STREAM, never before them")
        play.expect(
            Lines.opened(h2: "f1") + [
                "f1 cancel responseHead", "fired test/slow-cut", "arm streamPacing(1) 0.02s", "f1 close upstream",
                "arm streamPacing(1) 0.02s", Lines.idle,
            ])
    }

    @Test func aPacedQueueOverTheBoundPausesOnlyThatFlowsUpstream() throws {
        var play = try HTTP2Playbook(ruleSet: Self.rules) { $0.maximumPendingUpstreamBytes = 20 }
        let paced = try play.request("GET", "/paced")
        let free = try play.request("GET", "/free")
        let pacedFlow = try play.flow(ofStream: paced)
        let freeFlow = try play.flow(ofStream: free)
        play.connected(flow: pacedFlow)
        play.connected(flow: freeFlow)
        // 40 of the 45 bytes: the flow goes on, its upstream still has something to say.
        play.upstream(flow: pacedFlow, "HTTP/1.1 200 OK\r\nContent-Length: 45\r\n\r\n")
        play.upstream(flow: pacedFlow, String(Self.body.prefix(40)))
        #expect(play.stream(paced).body.count == 10)
        #expect(play.upstreamReadsPaused(pacedFlow), "30 bytes wait, over the bound of 20")
        #expect(!play.upstreamReadsPaused(freeFlow))
        play.fire(.streamPacing)
        play.fire(.streamPacing)
        #expect(!play.upstreamReadsPaused(pacedFlow), "10 bytes wait: reading resumes")
        play.upstream(flow: pacedFlow, String(Self.body.dropFirst(40)))
        while play.isArmed(.streamPacing) { play.fire(.streamPacing) }
        #expect(play.stream(paced).bodyText == Self.body && play.stream(paced).ended)
        play.expect([
            Lines.idle, "f1 connect http://127.0.0.1:3000", "cancel clientIdle", "f2 connect http://127.0.0.1:3000",
            "f1 arm responseHead 60s", "f2 arm responseHead 60s", "f1 cancel responseHead", "fired test/slow",
            "arm streamPacing(1) 0.02s", "arm streamPacing(1) 0.02s", "arm streamPacing(1) 0.02s",
            "f1 release upstream", "arm streamPacing(1) 0.02s",
        ])
    }
}
