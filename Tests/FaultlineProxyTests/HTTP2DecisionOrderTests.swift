import FaultlineCore
import FaultlineHTTP2
import FaultlineProxy
import FaultlineTrace
import Testing

/// A rule question is answered while the driver carries out the batch that asked it, so the
/// answer's frames must leave after the frames the same input queued before the question. Out of
/// order, the client would read two header blocks against an HPACK dynamic table (RFC 7541 §2.3.2)
/// that the encoder filled in the other order.
@Suite struct HTTP2DecisionOrderTests {
    @Test func aRefusalAndARuleAnswerInOneReadBothReachTheClientIntact() throws {
        let rules = ruleSet(
            #"""
            { rules: [{ name: "deny", match: { path: "/deny" },
                        actions: [{ respond: { status: 401, headers: { "x-faultline-error": "denied", "content-type": "text/plain" }, body: "no" } }] }] }
            """#)
        var play = try HTTP2Playbook(ruleSet: rules)
        let looped = try play.client.startRequest(
            headers: [
                HTTP2Header(":method", "GET"), HTTP2Header(":scheme", "http"), HTTP2Header(":authority", "app.test"),
                HTTP2Header(":path", "/loop"), HTTP2Header("via", "2 faultline"),
            ], endStream: true)
        let denied = try play.client.startRequest(
            headers: [
                HTTP2Header(":method", "GET"), HTTP2Header(":scheme", "http"), HTTP2Header(":authority", "app.test"),
                HTTP2Header(":path", "/deny"),
            ], endStream: true)
        play.feed(play.takeClientOutput())
        play.pump()
        #expect(play.clientEvents.allSatisfy { if case .connectionError = $0 { false } else { true } })
        #expect(play.stream(looped).status == 508)
        #expect(play.stream(looped).field("x-faultline-error") == ["proxy-loop"])
        #expect(play.stream(denied).status == 401)
        #expect(play.stream(denied).field("x-faultline-error") == ["denied"])
        #expect(play.stream(denied).bodyText == "no")
        play.expect([Lines.idle, "cancel clientIdle", "fired test/deny", Lines.idle])
    }
}

extension HTTP2DecisionOrderTests {
    /// A `goaway` fault on one stream and another stream in the same read: the GOAWAY goes out
    /// while the second stream's question is out, so that stream is past its last stream and is
    /// never processed (RFC 9113 §6.8); its flow still says what it received before it ends.
    @Test func aStreamPastAGoAwaySentWhileItsQuestionWasOutNeverGoesUpstream() throws {
        let rules = ruleSet(
            #"{ rules: [{ name: "away", match: { path: "/away" }, actions: [{ fault: "goaway" }] }] }"#)
        var play = try HTTP2Playbook(ruleSet: rules)
        let away = try play.client.startRequest(headers: Self.get("/away"), endStream: true)
        let later = try play.client.startRequest(headers: Self.get("/later"), endStream: true)
        play.feed(play.takeClientOutput())
        play.pump()
        play.expect([
            Lines.idle, "cancel clientIdle", "fired test/away", "cancel clientIdle", "close client after flush",
        ])
        #expect(play.upstreams.isEmpty, "nothing goes upstream")
        #expect(play.stream(away).status == nil && play.stream(later).status == nil)
        let kinds = try play.events().map { "\($0.flow.map { "\($0)" } ?? "-") \($0.kind.rawValue)" }
        #expect(
            kinds == [
                "- http2.settings", "f1 request.received", "f1 rule.fired", "f1 fault.injected", "- http2.goaway",
                "f2 request.received", "f2 flow.aborted",
            ])
    }

    static func get(_ path: String) -> [HTTP2Header] {
        [
            HTTP2Header(":method", "GET"), HTTP2Header(":scheme", "http"), HTTP2Header(":authority", "app.test"),
            HTTP2Header(":path", path),
        ]
    }
}
