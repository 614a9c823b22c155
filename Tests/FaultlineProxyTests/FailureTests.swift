import FaultlineFlow
import FaultlineHTTP1
import FaultlineProxy
import FaultlineTrace
import Testing

@Suite struct FailureTests {
    static let get = "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n"

    @Test(arguments: [
        ("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("GET http://a.test/ HTTP/1.1\r\n\r\n", 400),
        ("POST http://a.test/ HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        ("GET http://a.test/ HTTP/2.0\r\nHost: a.test\r\n\r\n", 505),
        ("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nX: a\r\n b\r\n\r\n", 400),
        ("GET /relative HTTP/1.1\r\nHost: a.test\r\n\r\n", 400),
        ("GET ftp://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n", 501),
    ])
    func refusedRequestsAnswerTheStatusAndCloseWithoutReadingFurther(request: String, status: Int) throws {
        var play = Playbook()
        let smuggled = "GET http://evil.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n"
        play.client(request + smuggled)
        let answer = ParsedMessage(play.takeClientText())
        #expect(answer.startLine.hasPrefix("HTTP/1.1 \(status) "))
        #expect(answer.values("Connection") == ["close"])
        #expect(play.didCloseClient())
        #expect(!play.didConnect(to: "evil.test", port: 80), "nothing after a refusal is read as a request")
        play.client(smuggled)
        #expect(!play.didConnect(to: "evil.test", port: 80))
        let error = try #require(try play.events().first { $0.kind == .protocolError })
        #expect(error.int("status") == Int64(status))
        #expect(error.string("side") == "client")
    }

    @Test func malformedChunkMidBodyAbortsTheUpstreamToo() throws {
        var play = Playbook()
        play.client("POST http://a.test/ HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
        play.connected()
        _ = play.takeLog()
        play.client("zz\r\n")
        let log = play.takeLog()
        #expect(log.contains(.closeUpstream))
        #expect(ParsedMessage(play.takeClientText()).startLine == "HTTP/1.1 400 Bad Request")
    }

    @Test func connectTimeoutAnswers504AndKeepsTheClient() throws {
        var play = Playbook()
        play.client(Self.get)
        play.connectFailed(.connectTimeout("a.test"))
        let answer = ParsedMessage(play.takeClientText())
        #expect(answer.startLine == "HTTP/1.1 504 Gateway Timeout")
        #expect(answer.body.hasPrefix("faultline: "))
        #expect(!play.didCloseClient(), "the request was read completely, so the connection stays usable")
        let error = try #require(try play.events().first { $0.kind == .upstreamError })
        #expect(error.string("code") == "connect-timeout")
    }

    @Test func responseTimeoutAnswers504() throws {
        var play = Playbook()
        play.client(Self.get)
        play.connected()
        #expect(play.takeLog().contains(.setTimer(.responseHead, .seconds(60))))
        play.fire(.responseHead)
        #expect(ParsedMessage(play.takeClientText()).startLine == "HTTP/1.1 504 Gateway Timeout")
        #expect(play.takeLog().contains(.closeUpstream))
    }

    @Test func upstreamClosingBeforeAnyResponseAnswers502() throws {
        var play = Playbook()
        play.client(Self.get)
        play.connected()
        play.upstreamEOF()
        #expect(ParsedMessage(play.takeClientText()).startLine == "HTTP/1.1 502 Bad Gateway")
        #expect(try play.events().contains { $0.string("code") == "upstream-closed" })
    }

    @Test func truncatedResponseBodyCutsTheClientConnection() throws {
        var play = Playbook()
        play.client(Self.get)
        play.connected()
        play.upstream("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345")
        play.upstreamEOF()
        #expect(play.takeClientText().hasSuffix("12345"), "no error page after a started response")
        #expect(play.takeLog().contains(.closeClient(afterFlush: true)))
        let error = try #require(try play.events().first { $0.kind == .protocolError })
        #expect(error.string("side") == "upstream")
    }

    @Test func malformedUpstreamResponseAnswers502() throws {
        var play = Playbook()
        play.client(Self.get)
        play.connected()
        play.upstream("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n")
        #expect(ParsedMessage(play.takeClientText()).startLine == "HTTP/1.1 502 Bad Gateway")
        #expect(play.takeLog().contains(.closeUpstream))
    }

    @Test func clientVanishingMidExchangeAbortsTheFlow() throws {
        var play = Playbook()
        play.client(Self.get)
        play.connected()
        play.clientClosed()
        #expect(play.takeLog().contains(.closeUpstream))
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
    }
}
