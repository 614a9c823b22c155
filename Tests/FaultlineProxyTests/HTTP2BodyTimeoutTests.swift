import FaultlineCore
import FaultlineHTTP2
import FaultlineProxy
import FaultlineTrace
import Testing

/// The body timeout on HTTP/2 (HTTP2ProxySession+BodyTimeout.swift): each stream's request body
/// may go `ProxyConfiguration.bodyTimeout` without DATA; a stream that stops mid-body gets 408
/// on that stream (or its reset, once the response has begun), its upstream closes, and the
/// other streams of the connection carry on.
@Suite struct HTTP2BodyTimeoutTests {
    static let upload: [(String, String)] = [("content-length", "10")]

    /// Starts a POST of 10 octets on a new stream whose first 3 arrive; its upstream connects.
    static func stalledUpload(_ play: inout HTTP2Playbook, path: String = "/upload") throws -> (Int32, FlowID) {
        let id = try play.request("POST", path, fields: upload, body: "abc", endStream: false)
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        return (id, flow)
    }

    @Test func aStreamWhoseBodyStopsGets408AndItsUpstreamCloses() throws {
        var play = try HTTP2Playbook { $0.bodyTimeout = .seconds(5) }
        let (id, flow) = try Self.stalledUpload(&play)
        #expect(play.isArmed(.streamBody))
        play.fire(.streamBody)
        #expect(play.stream(id).status == 408)
        #expect(play.stream(id).ended)
        // The answer is whole: RST_STREAM NO_ERROR asks the client to stop the body (RFC 9113 §8.1).
        #expect(play.stream(id).reset == .noError)
        #expect(play.upstreams[flow]?.closed == true)
        #expect(!play.clientConnectionClosed)
        let error = try #require(try play.events(of: flow).first { $0.kind == .protocolError })
        #expect(error.string("code") == "body-timeout")
        #expect(error.int("status") == 408)
        #expect(error.string("message")?.contains("5 s") == true)
        #expect(try !play.eventKinds(of: flow).contains("flow.aborted"), "the flow ends as an HTTP/1 body timeout does")
        play.expect([
            Lines.idle, "f1 connect http://127.0.0.1:3000", "arm streamBody(1) 5s", "cancel clientIdle",
            "f1 close upstream", Lines.idle,
        ])
    }

    @Test func eachDataRestartsTheClockAndTheBodysEndStopsIt() throws {
        var play = try HTTP2Playbook()
        let (id, flow) = try Self.stalledUpload(&play)
        play.send(stream: id, "def")
        #expect(play.isArmed(.streamBody))
        play.send(stream: id, "ghij", endStream: true)
        #expect(!play.isArmed(.streamBody))
        play.upstream(flow: flow, HTTP2SessionTests.ok5)
        #expect(play.stream(id).bodyText == "hello")
        #expect(try play.upstreamRequest(of: flow).body == "abcdefghij")
        play.expect(
            [
                Lines.idle, "f1 connect http://127.0.0.1:3000", "arm streamBody(1) 60s", "cancel clientIdle",
                "arm streamBody(1) 60s", "f1 arm responseHead 60s", "cancel streamBody(1)",
            ] + Lines.pooled(h2: "f1"))
    }

    /// The origin answered before the upload ended: a 408 would be a second response, so the
    /// stream is reset.
    @Test func aStreamWhoseResponseBeganIsReset() throws {
        var play = try HTTP2Playbook()
        let (id, flow) = try Self.stalledUpload(&play)
        play.upstream(flow: flow, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel")
        #expect(play.stream(id).status == 200)
        play.fire(.streamBody)
        #expect(play.stream(id).reset == .internalError)
        #expect(play.stream(id).bodyText == "hel")
        #expect(play.upstreams[flow]?.closed == true)
        let error = try #require(try play.events(of: flow).first { $0.kind == .protocolError })
        #expect(error.string("code") == "body-timeout")
        #expect(!play.clientConnectionClosed)
        play.expect([
            Lines.idle, "f1 connect http://127.0.0.1:3000", "arm streamBody(1) 60s", "cancel clientIdle",
            "f1 close upstream", Lines.idle,
        ])
    }

    /// One stream's silence is its own: the other stream's upload goes on and is answered.
    @Test func otherStreamsAreUntouched() throws {
        var play = try HTTP2Playbook()
        let (stalled, stalledFlow) = try Self.stalledUpload(&play)
        let (other, otherFlow) = try Self.stalledUpload(&play, path: "/other")
        play.send(stream: other, "defghij", endStream: true)
        play.fire(.streamBody)
        #expect(play.stream(stalled).status == 408)
        #expect(play.stream(other).status == nil)
        play.upstream(flow: otherFlow, HTTP2SessionTests.ok5)
        #expect(play.stream(other).bodyText == "hello")
        #expect(play.stream(other).reset == nil)
        #expect(play.upstreams[stalledFlow]?.closed == true)
        #expect(play.upstreams[otherFlow]?.released == true)
        play.expect([
            Lines.idle, "f1 connect http://127.0.0.1:3000", "arm streamBody(1) 60s", "cancel clientIdle",
            "f2 connect http://127.0.0.1:3000", "arm streamBody(3) 60s", "f2 arm responseHead 60s",
            "cancel streamBody(3)", "f1 close upstream", "f2 cancel responseHead", "f2 release upstream", Lines.idle,
        ])
    }

    /// The client cannot send while its window is used up and we hold the credit back (the
    /// flow's upstream is not there yet and the body waiting is over the bound): that silence is
    /// ours, and the clock starts again. Once the credit comes, the client's silence counts, from
    /// a whole timeout after the window was last seen shut (it may have opened just before).
    @Test func aStreamOutOfWindowWeHoldBackDoesNotTimeOut() throws {
        var limits = HTTP2Connection.Limits()
        limits.initialWindowSize = 1000
        var play = try HTTP2Playbook(sessionLimits: limits) { $0.maximumPendingUpstreamBytes = 500 }
        let id = try play.request(
            "POST", "/upload", fields: [("content-length", "2000")], body: String(repeating: "a", count: 1000),
            endStream: false)
        let flow = try play.flow(ofStream: id)
        play.fire(.streamBody)
        #expect(play.isArmed(.streamBody), "started again")
        #expect(play.stream(id).status == nil)
        #expect(try !play.events(of: flow).contains { $0.kind == .protocolError })

        play.connected(flow: flow)
        play.fire(.streamBody)
        #expect(play.stream(id).status == nil, "the window opened at a moment not seen: one more run")
        play.fire(.streamBody)
        #expect(play.stream(id).status == 408)
        play.expect([
            Lines.idle, "f1 connect http://127.0.0.1:3000", "arm streamBody(1) 60s", "cancel clientIdle",
            "arm streamBody(1) 60s", "arm streamBody(1) 60s", "f1 close upstream", Lines.idle,
        ])
    }
}
