import FaultlineFlow
import FaultlineHTTP1
import FaultlineProxy
import FaultlineTrace
import Testing

@Suite struct FramingTests {
    static let get = "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n"

    @Test func closeDelimitedResponseBecomesChunkedForHTTP11Clients() throws {
        var play = Playbook()
        play.client(Self.get)
        play.connected()
        play.upstream("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nabc")
        play.upstream("defg")
        play.upstreamEOF()
        let delivered = ParsedMessage(play.takeClientText())
        #expect(delivered.values("Transfer-Encoding") == ["chunked"])
        #expect(delivered.body == "3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n")
        play.expect(Lines.opened("http://a.test:80") + ["cancel responseHead", "close upstream", Lines.idle])
        #expect(try play.events().last?.body("body")?.length == 7)
    }

    @Test func chunkedResponseIsCloseDelimitedForHTTP10Clients() {
        var play = Playbook()
        play.client("GET http://a.test/ HTTP/1.0\r\n\r\n")
        play.connected()
        #expect(ParsedMessage(play.takeUpstreamText()).startLine == "GET / HTTP/1.1")
        play.upstream("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
        let delivered = ParsedMessage(play.takeClientText())
        #expect(delivered.values("Transfer-Encoding").isEmpty)
        #expect(delivered.values("Connection") == ["close"])
        #expect(delivered.body == "abc")
        play.expect(
            Lines.opened("http://a.test:80") + [
                "cancel responseHead", "release upstream", "cancel clientIdle", "close client after flush",
            ])
    }

    @Test func trailersPassThroughChunkedResponses() {
        var play = Playbook()
        play.client(Self.get)
        play.connected()
        play.upstream("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-Checksum: 42\r\n\r\n")
        #expect(play.takeClientText().hasSuffix("2\r\nok\r\n0\r\nX-Checksum: 42\r\n\r\n"))
        play.expect(Lines.opened("http://a.test:80") + Lines.pooled)
    }

    @Test func headResponseKeepsContentLengthButHasNoBody() {
        var play = Playbook()
        play.client("HEAD http://a.test/big HTTP/1.1\r\nHost: a.test\r\n\r\n")
        play.connected()
        play.upstream("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
        let delivered = ParsedMessage(play.takeClientText())
        #expect(delivered.values("Content-Length") == ["1000"])
        #expect(delivered.body.isEmpty)
        play.expect(Lines.opened("http://a.test:80") + Lines.pooled)
    }

    @Test func interimResponsesReachHTTP11ClientsBeforeTheFinalOne() {
        var play = Playbook()
        play.client(
            "PUT http://a.test/f HTTP/1.1\r\nHost: a.test\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
        play.connected()
        #expect(ParsedMessage(play.takeUpstreamText()).values("Expect") == ["100-continue"])
        play.upstream("HTTP/1.1 100 Continue\r\n\r\n")
        #expect(play.takeClientText() == "HTTP/1.1 100 Continue\r\n\r\n")
        play.client("data")
        #expect(play.takeUpstreamText() == "data")
        play.upstream("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")
        #expect(ParsedMessage(play.takeClientText()).startLine == "HTTP/1.1 201 Created")
        play.expect(Lines.opened("http://a.test:80") + Lines.pooled)
    }

    @Test func earlyFinalResponseClosesTheClientWhoseBodyIsUnfinished() {
        var play = Playbook()
        play.client("POST http://a.test/f HTTP/1.1\r\nHost: a.test\r\nContent-Length: 100\r\n\r\npartial")
        play.connected()
        play.upstream("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n")
        let delivered = ParsedMessage(play.takeClientText())
        #expect(delivered.values("Connection") == ["close"])
        play.expect([
            Lines.idle, "cancel clientIdle", "connect http://a.test:80", "close upstream", "cancel clientIdle",
            "close client after flush",
        ])
    }

    @Test func requestBodyBytesSentWhileConnectingAreHeldThenForwarded() {
        var play = Playbook()
        play.client("POST http://a.test/f HTTP/1.1\r\nHost: a.test\r\nContent-Length: 10\r\n\r\n01234")
        play.client("56789")
        #expect(play.upstreamText.isEmpty)
        play.connected()
        #expect(play.takeUpstreamText().hasSuffix("\r\n\r\n0123456789"))
        play.expect(Lines.opened("http://a.test:80"))
    }

    @Test func clientHalfCloseAfterACompleteRequestStillGetsTheResponse() {
        var play = Playbook()
        play.client(Self.get)
        play.clientEOF()
        play.expect([Lines.idle, "cancel clientIdle", "connect http://a.test:80"])
        play.connected()
        play.upstream("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        #expect(play.takeClientText().hasSuffix("ok"))
        play.expect([
            "arm responseHead 60s", "cancel responseHead", "release upstream", "cancel clientIdle",
            "close client after flush",
        ])
    }

    @Test func stalePooledConnectionIsReplacedOnceForABodilessRequest() throws {
        var play = Playbook()
        play.client(Self.get)
        play.connected(reused: true)
        _ = play.takeUpstreamText()
        play.expect(Lines.opened("http://a.test:80"))
        play.upstreamEOF()
        play.expect(["cancel responseHead", "close upstream", "connect http://a.test:80 fresh"])
        play.connected()
        #expect(ParsedMessage(play.takeUpstreamText()).startLine == "GET / HTTP/1.1")
        play.upstream("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        #expect(ParsedMessage(play.takeClientText()).startLine == "HTTP/1.1 200 OK")
        play.expect(["arm responseHead 60s"] + Lines.pooled)
    }

    @Test func aFreshConnectionThatClosesIsNotRetriedAgain() throws {
        var play = Playbook()
        play.client(Self.get)
        play.connected(reused: true)
        play.upstreamEOF()
        play.connected(reused: false)
        play.expect(
            Lines.opened("http://a.test:80") + [
                "cancel responseHead", "close upstream", "connect http://a.test:80 fresh", "arm responseHead 60s",
            ])
        play.upstreamEOF()
        play.expect(["close upstream", "cancel responseHead", Lines.idle])
        #expect(ParsedMessage(play.takeClientText()).startLine == "HTTP/1.1 502 Bad Gateway")
    }

    @Test func aRequestWithABodyIsNotRetriedOnAFreshConnection() throws {
        var play = Playbook()
        play.client("POST http://a.test/ HTTP/1.1\r\nHost: a.test\r\nContent-Length: 2\r\n\r\nhi")
        play.connected(reused: true)
        play.upstreamEOF()
        #expect(ParsedMessage(play.takeClientText()).startLine == "HTTP/1.1 502 Bad Gateway")
        play.expect(Lines.opened("http://a.test:80") + ["close upstream", "cancel responseHead", Lines.idle])
    }
}
