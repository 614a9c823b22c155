import FaultlineFlow
import FaultlineHTTP1
import FaultlineProxy
import FaultlineTrace
import Testing

@Suite struct FailureTests {
    static let get = "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n"

    @Test(arguments: [
        // Refused by the decoder, before a head exists.
        (
            "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
            400, false
        ),
        ("GET http://a.test/ HTTP/1.1\r\n\r\n", 400, false),
        ("POST http://a.test/ HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: gzip\r\n\r\n", 501, false),
        ("GET http://a.test/ HTTP/2.0\r\nHost: a.test\r\n\r\n", 505, false),
        ("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nX: a\r\n b\r\n\r\n", 400, false),
        // Refused by the route, after the head.
        ("GET /relative HTTP/1.1\r\nHost: a.test\r\n\r\n", 400, true),
        ("GET ftp://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n", 501, true),
    ])
    func refusedRequestsAnswerTheStatusAndCloseWithoutReadingFurther(request: String, status: Int, routed: Bool) throws
    {
        var play = Playbook()
        let smuggled = "GET http://evil.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n"
        play.client(request + smuggled)
        let answer = ParsedMessage(play.takeClientText())
        #expect(answer.startLine.hasPrefix("HTTP/1.1 \(status) "))
        #expect(answer.values("Connection") == ["close"])
        // A route refusal cancels the idle timer a second time (harmless; the actions say so).
        play.expect(Lines.refused(routed: routed) + ["close client after flush"])
        play.client(smuggled)
        play.expectNothing()
        let error = try #require(try play.events().first { $0.kind == .protocolError })
        #expect(error.int("status") == Int64(status))
        #expect(error.string("side") == "client")
    }

    @Test func malformedChunkMidBodyAbortsTheUpstreamToo() throws {
        var play = Playbook()
        play.client("POST http://a.test/ HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
        play.connected()
        play.expect([Lines.idle, "cancel clientIdle", "connect http://a.test:80"])
        play.client("zz\r\n")
        play.expect(["close upstream", "cancel clientIdle", "close client after flush"])
        #expect(ParsedMessage(play.takeClientText()).startLine == "HTTP/1.1 400 Bad Request")
    }

    @Test func connectTimeoutAnswers504AndKeepsTheClient() throws {
        var play = Playbook()
        play.client(Self.get)
        play.connectFailed(.connectTimeout("a.test"))
        let answer = ParsedMessage(play.takeClientText())
        #expect(answer.startLine == "HTTP/1.1 504 Gateway Timeout")
        #expect(answer.body.hasPrefix("faultline: "))
        play.expect([Lines.idle, "cancel clientIdle", "connect http://a.test:80", "close upstream", Lines.idle])
        let error = try #require(try play.events().first { $0.kind == .upstreamError })
        #expect(error.string("code") == "connect-timeout")
    }

    @Test func responseTimeoutAnswers504() throws {
        var play = Playbook()
        play.client(Self.get)
        play.connected()
        play.expect(Lines.opened("http://a.test:80"))
        play.fire(.responseHead)
        #expect(ParsedMessage(play.takeClientText()).startLine == "HTTP/1.1 504 Gateway Timeout")
        play.expect(["close upstream", Lines.idle])
    }

    @Test func upstreamClosingBeforeAnyResponseAnswers502() throws {
        var play = Playbook()
        play.client(Self.get)
        play.connected()
        play.upstreamEOF()
        #expect(ParsedMessage(play.takeClientText()).startLine == "HTTP/1.1 502 Bad Gateway")
        #expect(try play.events().contains { $0.string("code") == "upstream-closed" })
        play.expect(Lines.opened("http://a.test:80") + ["close upstream", "cancel responseHead", Lines.idle])
    }

    @Test func truncatedResponseBodyCutsTheClientConnection() throws {
        var play = Playbook()
        play.client(Self.get)
        play.connected()
        play.upstream("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345")
        play.upstreamEOF()
        #expect(play.takeClientText().hasSuffix("12345"), "no error page after a started response")
        play.expect(
            Lines.opened("http://a.test:80") + [
                "cancel responseHead", "close upstream", "cancel clientIdle", "close client after flush",
            ])
        let error = try #require(try play.events().first { $0.kind == .protocolError })
        #expect(error.string("side") == "upstream")
    }

    @Test func malformedUpstreamResponseAnswers502() throws {
        var play = Playbook()
        play.client(Self.get)
        play.connected()
        play.upstream("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n")
        #expect(ParsedMessage(play.takeClientText()).startLine == "HTTP/1.1 502 Bad Gateway")
        play.expect(Lines.opened("http://a.test:80") + ["close upstream", "cancel responseHead", Lines.idle])
    }

    @Test func clientVanishingMidExchangeAbortsTheFlow() throws {
        var play = Playbook()
        play.client(Self.get)
        play.connected()
        play.clientClosed()
        play.expect(Lines.opened("http://a.test:80") + ["close upstream", "cancel responseHead", Lines.idle])
        #expect(try play.eventKinds().last == "flow.aborted")
        #expect(play.session.isClosed)
    }

    @Test func pipelinedBytesBeyondTheLimitPauseClientReads() {
        // One pipelined request (45 bytes) waits behind the first one.
        var play = Playbook { $0.maximumPendingUpstreamBytes = 40 }
        play.client(Self.get + Self.get)
        #expect(play.session.wantsClientReadsPaused)
        play.connected()
        play.upstream("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        #expect(!play.session.wantsClientReadsPaused)
        play.expect(
            Lines.opened("http://a.test:80") + Lines.pooled + ["cancel clientIdle", "connect http://a.test:80"])
    }
}
