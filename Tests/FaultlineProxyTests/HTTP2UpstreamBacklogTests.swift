import FaultlineCore
import FaultlineHTTP2
import Testing

@testable import FaultlineProxy

/// An upstream that does not take a request body fast enough stops that request's stream only:
/// the session withholds the stream's credit (RFC 9113 §5.2.2) while the driver reports a
/// backlog, and never asks the driver to stop reading the client connection, which carries the
/// other streams (the driver does that for HTTP/1 only: `pausesClientForUpstreamBacklog`).
@Suite struct HTTP2UpstreamBacklogTests {
    @Test func aBackloggedUpstreamWithholdsCreditFromItsStreamOnly() throws {
        var sessionLimits = HTTP2Connection.Limits()
        sessionLimits.initialWindowSize = 2048
        var play = try HTTP2Playbook(sessionLimits: sessionLimits) { $0.maximumPendingUpstreamBytes = 1024 }
        #expect(!play.session.pausesClientForUpstreamBacklog)
        let chunk = String(repeating: "u", count: 1000)
        let upload = try play.request(
            "POST", "/upload", fields: [("content-length", "6000")], body: chunk, endStream: false)
        let flow = try play.flow(ofStream: upload)
        play.connected(flow: flow)
        #expect(play.client.bufferedOutboundBytes(stream: upload) == 0)

        // The driver could not get it all into the socket: a backlog over its watermark.
        play.upstreamBacklog(flow: flow, bytes: 300_000)
        for _ in 0..<5 { play.send(stream: upload, chunk) }
        // At most one window (2048) went out; nghttp2 may not have sent the credit for the first
        // 1000 bytes yet (it sends WINDOW_UPDATE once half the window is consumed).
        let stopped = play.client.bufferedOutboundBytes(stream: upload)
        #expect(stopped >= 5000 - 2048, "no credit while the upstream is backlogged")
        play.pump()
        #expect(play.client.bufferedOutboundBytes(stream: upload) == stopped)
        #expect(!play.clientReadsPaused, "the connection is not stopped")
        let other = try play.request("GET", "/other")
        let otherFlow = try play.flow(ofStream: other)
        play.connected(flow: otherFlow)
        play.upstream(flow: otherFlow, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        #expect(play.stream(other).status == 200 && play.stream(other).ended)

        // Drained: credit flows again and the rest of the body goes up.
        play.upstreamBacklog(flow: flow, bytes: 0)
        #expect(play.client.bufferedOutboundBytes(stream: upload) == 0)
        #expect(try play.upstreamRequest(of: flow).body == String(repeating: "u", count: 6000))
        play.expect([
            Lines.idle, "f1 connect http://127.0.0.1:3000", "arm streamBody(1) 60s", "cancel clientIdle",
            "arm streamBody(1) 60s", "arm streamBody(1) 60s", "f2 connect http://127.0.0.1:3000",
            "f2 arm responseHead 60s", "f2 cancel responseHead", "f2 release upstream", "arm streamBody(1) 60s",
            "arm streamBody(1) 60s",
        ])
    }
}
