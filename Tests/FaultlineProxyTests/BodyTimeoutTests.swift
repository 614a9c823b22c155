import FaultlineHTTP1
import FaultlineTrace
import Testing

@testable import FaultlineProxy

/// A request body may go `ProxyConfiguration.bodyTimeout` without a byte (nginx's
/// `client_body_timeout`); an upload that stops mid-body gets 408, or its connection cut once the
/// response has begun, instead of holding the connection and its upstream for the idle timeout.
@Suite struct BodyTimeoutTests {
    private static let head = "POST http://a.test/upload HTTP/1.1\r\nHost: a.test\r\nContent-Length: 10\r\n\r\n"

    @Test func aBodyThatStopsGets408AndItsUpstreamCloses() throws {
        var play = Playbook()
        play.client(Self.head + "abc")
        #expect(play.isArmed(.requestBody))
        play.connected()
        play.fire(.requestBody)
        let answer = ParsedMessage(play.takeClientText())
        #expect(answer.startLine == "HTTP/1.1 408 Request Timeout")
        #expect(answer.values("Connection") == ["close"])
        play.expect([
            Lines.idle, "cancel clientIdle", "connect http://a.test:80", "close upstream", "cancel clientIdle",
            "close client after flush",
        ])
        let error = try #require(try play.events().first { $0.kind == .protocolError })
        #expect(error.string("code") == "body-timeout")
        #expect(error.int("status") == 408)
    }

    @Test func everyReadStartsTheClockAgainAndTheBodysEndStopsIt() {
        var play = Playbook()
        play.client(Self.head + "abc")
        play.client("def")
        #expect(play.isArmed(.requestBody))
        play.client("ghij")
        #expect(!play.isArmed(.requestBody))
        play.connected()
        play.upstream("HTTP/1.1 204 No Content\r\n\r\n")
        #expect(ParsedMessage(play.takeClientText()).startLine == "HTTP/1.1 204 No Content")
        #expect(!play.session.isClosed)
        play.expect(
            [Lines.idle, "cancel clientIdle", "connect http://a.test:80", "arm responseHead 60s"] + Lines.pooled)
    }

    /// The origin answered before the upload finished: the response has begun, so a stalled
    /// body can only end with the connection cut (a 408 would be a second response).
    @Test func aBodyThatStopsAfterTheResponseBeganCutsTheConnection() throws {
        var play = Playbook()
        play.client(Self.head + "abc")
        play.connected()
        play.upstream("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel")
        _ = play.takeClientText()
        play.fire(.requestBody)
        #expect(!play.takeClientText().contains("408"))
        #expect(play.session.isClosed || play.session.closeReason != nil)
        let error = try #require(try play.events().first { $0.kind == .protocolError })
        #expect(error.string("code") == "body-timeout")
        play.expect([
            Lines.idle, "cancel clientIdle", "connect http://a.test:80", "close upstream", "cancel clientIdle",
            "close client after flush",
        ])
    }

    @Test func aRequestWithoutABodyHasNoBodyClock() {
        var play = Playbook()
        play.client("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n")
        #expect(!play.isArmed(.requestBody))
        play.connected()
        play.upstream("HTTP/1.1 204 No Content\r\n\r\n")
        play.client("POST http://a.test/ HTTP/1.1\r\nHost: a.test\r\nContent-Length: 0\r\n\r\n")
        #expect(!play.isArmed(.requestBody))
        play.expect(
            [Lines.idle, "cancel clientIdle", "connect http://a.test:80", "arm responseHead 60s"] + Lines.pooled
                + ["cancel clientIdle", "connect http://a.test:80"])
    }
}
