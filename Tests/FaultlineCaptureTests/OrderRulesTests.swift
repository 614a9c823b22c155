import FaultlineHTTP1
import Testing

@testable import FaultlineCapture

/// Three recorded flows: A (business) in flight while B (business) is received and delivered and a
/// mark is written; C (logout) answered while D (refresh) waits.
private func recording() -> Capture {
    var seq: UInt64 = 0
    func at() -> Moment {
        seq += 1
        return Moment(seq: seq, monoNanoseconds: seq, wall: "w")
    }
    var exchanges: [CapturedExchange] = []
    var timeline: [TimelineEntry] = []
    func request(_ flow: Int64, _ method: String, _ path: String, role: String) {
        let captured = CapturedRequest(
            method: method, url: RecordedURL("http://api.test\(path)")!, httpVersion: "HTTP/1.1", headers: [], body: nil
        )
        var exchange = CapturedExchange(flow: flow, received: at(), clientRequest: captured)
        exchange.upstreamRequest = captured
        exchange.role = role
        exchange.response = CapturedResponse(status: 200, reason: "OK", httpVersion: "HTTP/1.1", headers: [], body: nil)
        exchanges.append(exchange)
        timeline.append(TimelineEntry(.received(flow: flow), at: exchange.received))
    }
    func deliver(_ flow: Int64) {
        let moment = at()
        exchanges[exchanges.firstIndex { $0.flow == flow }!].delivered = moment
        timeline.append(TimelineEntry(.delivered(flow: flow), at: moment))
    }
    request(1, "GET", "/v1/a", role: "business")
    request(2, "GET", "/v1/a", role: "business")
    deliver(2)
    timeline.append(TimelineEntry(.mark("tap"), at: at()))
    deliver(1)
    request(3, "POST", "/oauth/token", role: "refresh")
    request(4, "POST", "/logout", role: "logout")
    deliver(4)
    deliver(3)
    return Capture(source: "c.jsonl", secrets: .pseudonyms, hasBodies: false, exchanges: exchanges, timeline: timeline)
}

@Test func eachResponseDeliveredAfterOthersIsHeldUntilTheLastOfThem() {
    let (text, holds) = OrderRules.scenario(from: recording(), holdTimeout: 7)
    #expect(holds == 2)
    // A waited for the mark written during its flight, the first /v1/a by occurrence.
    #expect(text.contains(#"name: "hold-get-v1-a-1", phase: "response","#))
    #expect(text.contains(#"release: { on: "mark:tap" }, timeout: 7"#))
    // The refresh waited for the logout: a unique role, so its own event.
    #expect(text.contains(#"name: "hold-post-oauth-token-1""#))
    #expect(text.contains(#"release: { on: "logout.delivered" }"#))
    // B was delivered in its own flight's order: no hold.
    #expect(!text.contains("hold-get-v1-a-2"))
}

@Test func aBusinessStepIsMarkedByARuleThatChangesNothing() {
    var capture = recording()
    // Without the mark, A's last step is B's delivery: B, a business request, gets a marker rule.
    capture.timeline.removeAll { $0.kind == .mark("tap") }
    let (text, _) = OrderRules.scenario(from: capture)
    #expect(text.contains(#"release: { on: "delivered:seen-get-v1-a-2-response" }"#))
    #expect(text.contains(#"name: "seen-get-v1-a-2-response", phase: "response","#))
    #expect(text.contains("when: { nth: 2 }"))
    #expect(text.contains("actions: [{ delay: 0 }]"))
}
