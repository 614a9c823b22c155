import FaultlineHTTP1
import FaultlineTrace
import Testing

@testable import FaultlineProxy

/// A request head has `ProxyConfiguration.headerTimeout` from its first byte to its end
/// (haproxy's `timeout http-request`); a slowloris client that sends a byte now and then gets
/// 408 and the connection closes, instead of holding it for the whole idle timeout.
@Suite struct HeaderTimeoutTests {
    @Test func aHeadThatStopsHalfWayGets408AndTheConnectionCloses() throws {
        var play = Playbook()
        play.client("GET http://a.test/ HTTP/1.1\r\nHost: a.te")
        #expect(play.isArmed(.requestHead))
        play.client("s")  // another byte does not restart the clock
        play.fire(.requestHead)
        let answer = ParsedMessage(play.takeClientText())
        #expect(answer.startLine == "HTTP/1.1 408 Request Timeout")
        #expect(answer.values("Connection") == ["close"])
        play.expect([Lines.idle, "cancel clientIdle", "close client after flush"])
        #expect(play.session.closeReason == "protocol-error")
        let error = try #require(try play.events().first { $0.kind == .protocolError })
        #expect(error.string("code") == "header-timeout")
        #expect(error.int("status") == 408)
        #expect(error.string("side") == "client")
    }

    @Test func aHeadThatEndsInTimeStopsTheClock() {
        var play = Playbook()
        play.client("GET http://a.test/ HTTP/1.1\r\n")
        #expect(play.isArmed(.requestHead))
        play.client("Host: a.test\r\n\r\n")
        #expect(!play.isArmed(.requestHead))
        play.connected()
        play.upstream("HTTP/1.1 204 No Content\r\n\r\n")
        play.expect(
            [Lines.idle, "cancel clientIdle", "connect http://a.test:80", "arm responseHead 60s"] + Lines.pooled)
    }

    /// On a kept-alive connection each head has its own clock: the second request's slow head
    /// times out too (a clock left marked as running after the first head would never start).
    @Test func theNextRequestOnAKeptAliveConnectionHasItsOwnClock() throws {
        var play = Playbook()
        play.client("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n")
        #expect(!play.isArmed(.requestHead))
        play.connected()
        play.upstream("HTTP/1.1 204 No Content\r\n\r\n")
        _ = play.takeClientText()
        play.client("GET http://a.test/next HTTP/1.1\r\n")
        #expect(play.isArmed(.requestHead))
        play.fire(.requestHead)
        #expect(ParsedMessage(play.takeClientText()).startLine == "HTTP/1.1 408 Request Timeout")
        play.expect(
            [Lines.idle, "cancel clientIdle", "connect http://a.test:80", "arm responseHead 60s"] + Lines.pooled
                + ["cancel clientIdle", "close client after flush"])
    }

    @Test func anIdleConnectionWithNoHeadBegunHasNoHeaderClock() {
        let play = Playbook()
        #expect(!play.isArmed(.requestHead))
        play.expect([Lines.idle])
    }
}
