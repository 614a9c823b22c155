import FaultlineCore
import FaultlineHTTP2
import FaultlineTrace
import Testing

@testable import FaultlineProxy

/// What a client that abuses HTTP/2 gets from the session, beyond what nghttp2 decides itself
/// (Tests/FaultlineHTTP2Tests/LimitsTests.swift): no flow for a stream its GOAWAY left unprocessed.
@Suite struct HTTP2AbuseTests {
    static func get(_ path: String) -> [HTTP2Header] {
        [
            HTTP2Header(":method", "GET"), HTTP2Header(":scheme", "http"), HTTP2Header(":authority", "app.test"),
            HTTP2Header(":path", path),
        ]
    }

    /// Rapid reset (CVE-2023-44487) with a budget of two resets: the third empties nghttp2's
    /// bucket and it queues GOAWAY naming stream 5, but it goes on accepting the streams of the
    /// same read until the frame is written. Streams 7 and 9 came after the GOAWAY's last stream:
    /// they were not processed (RFC 9113 §6.8), so no flow, no trace, no upstream.
    @Test func streamsAfterARapidResetGoAwayInTheSameReadStartNoFlow() throws {
        var limits = HTTP2Connection.Limits()
        limits.resetBurst = 2
        limits.resetRatePerSecond = 0
        var play = try HTTP2Playbook(sessionLimits: limits)
        var read: [UInt8] = []
        for index in 0..<3 {
            let id = try play.client.startRequest(headers: Self.get("/reset/\(index)"), endStream: true)
            read += play.takeClientOutput()
            play.client.reset(stream: id, code: .cancel)
            read += play.takeClientOutput()
        }
        for index in 0..<2 {
            _ = try play.client.startRequest(headers: Self.get("/later/\(index)"), endStream: true)
            read += play.takeClientOutput()
        }
        play.feed(read)
        play.pump()

        #expect(play.goAways.map(\.code) == [.internalError])
        #expect(play.goAways.map(\.lastStreamID) == [5])
        let received = try play.events().filter { $0.kind == .requestReceived }
        #expect(received.map { $0.int("stream") } == [1, 3, 5])
        #expect(play.upstreams.count <= 3, "no upstream for the streams after the GOAWAY")
        let goAway = try #require(try play.events().first { $0.kind == .http2GoAway })
        #expect(goAway.string("side") == "proxy" && goAway.int("last_stream_id") == 5)
        #expect(play.sessionIsClosed)
        play.expect([
            Lines.idle, "f1 connect http://127.0.0.1:3000", "f1 close upstream", "f2 connect http://127.0.0.1:3000",
            "f2 close upstream", "f3 connect http://127.0.0.1:3000", "f3 close upstream", "cancel clientIdle",
            "close client after flush",
        ])
    }
}
