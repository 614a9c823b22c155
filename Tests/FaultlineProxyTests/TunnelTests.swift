import FaultlineFlow
import FaultlineHTTP1
import FaultlineProxy
import FaultlineTrace
import Testing

@Suite struct TunnelTests {
    @Test func connectOpensAByteForByteTunnel() throws {
        var play = Playbook()
        play.client(
            "CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n\r\n\u{16}\u{03}\u{01}hello")
        play.expect([Lines.idle, "cancel clientIdle", "connect tcp://api.example.test:443"])
        play.connected()
        #expect(play.takeClientText() == "HTTP/1.1 200 Connection established\r\n\r\n")
        #expect(play.takeUpstreamText() == "\u{16}\u{03}\u{01}hello", "early bytes go up first")
        play.upstream("server-bytes")
        play.client("GET / HTTP/1.1\r\n\r\n")  // not parsed: it is tunnel payload
        #expect(play.takeClientText() == "server-bytes")
        #expect(play.takeUpstreamText() == "GET / HTTP/1.1\r\n\r\n")
        play.clientEOF()
        play.expect(["shutdown upstream write"])
        play.upstreamEOF()
        play.expect(["shutdown client write", "close upstream", "close client after flush"])
        let closed = try #require(try play.events().last)
        #expect(closed.kind == .tunnelClosed)
        #expect(closed.int("bytes_from_client") == 26, "8 early bytes and an 18-byte request line")
        #expect(closed.int("bytes_from_upstream") == 12)
        #expect(try play.eventKinds().filter { $0 == "request.received" }.count == 1)
    }

    @Test func bytesAndAFINBeforeTheTargetAnswersGoUpWhenTheTunnelOpens() throws {
        var play = Playbook()
        play.client("CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n\r\n")
        play.client("\u{16}\u{03}\u{01}")
        play.client("more")
        play.clientEOF()
        play.expect([Lines.idle, "cancel clientIdle", "connect tcp://api.example.test:443"])
        #expect(play.takeUpstreamText() == "", "nothing goes up before the tunnel opens")
        play.connected()
        #expect(play.takeClientText() == "HTTP/1.1 200 Connection established\r\n\r\n")
        #expect(play.takeUpstreamText() == "\u{16}\u{03}\u{01}more", "in the order they came")
        play.expect(["shutdown upstream write"])
        play.upstreamEOF()
        play.expect(["shutdown client write", "close upstream", "close client after flush"])
        let closed = try #require(try play.events().last)
        #expect(closed.int("bytes_from_client") == 7)
    }

    @Test func theClientIsPausedWhileItsTunnelWaitsForTheTarget() {
        var play = Playbook(configure: { $0.maximumPendingUpstreamBytes = 8 })
        play.client("CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n\r\n12345678")
        #expect(!play.session.wantsClientReadsPaused, "up to the limit")
        play.client("9")
        #expect(play.session.wantsClientReadsPaused, "beyond it")
        play.connected()
        #expect(!play.session.wantsClientReadsPaused, "the tunnel took the bytes")
        #expect(play.takeUpstreamText() == "123456789")
        play.expect([Lines.idle, "cancel clientIdle", "connect tcp://api.example.test:443"])
    }

    @Test func aClientThatLeavesBeforeTheTargetAnswersAbortsTheConnect() throws {
        var play = Playbook()
        play.client("CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n\r\n")
        play.clientClosed()
        play.expect([Lines.idle, "cancel clientIdle", "connect tcp://api.example.test:443", "close upstream"])
        #expect(play.session.isClosed)
        let aborted = try #require(try play.events().first { $0.kind == .flowAborted })
        #expect(aborted.string("reason") == "client closed the connection")
        // The connection made after all is not wanted.
        play.connected()
        play.expect(["close upstream"])
        #expect(play.takeClientText() == "")
    }

    @Test func webSocketUpgradeBecomesATunnelAfter101() throws {
        var play = Playbook()
        play.client(
            "GET http://ws.test/chat HTTP/1.1\r\nHost: ws.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        // HTTP/2 has no form of this upgrade here: the connection must not be an h2 one.
        play.expect([Lines.idle, "cancel clientIdle", "connect http://ws.test:80 http1-only"])
        play.connected()
        let sent = ParsedMessage(play.takeUpstreamText())
        #expect(sent.values("Connection") == ["Upgrade"])
        #expect(sent.values("Upgrade") == ["websocket"])
        play.upstream(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n\u{81}\u{02}hi")
        let delivered = play.takeClientText()
        #expect(delivered.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        #expect(delivered.contains("Upgrade: websocket"))
        #expect(delivered.hasSuffix("\r\n\r\n\u{81}\u{02}hi"), "frames after the 101 are relayed")
        play.client("\u{81}\u{82}maskhi")
        #expect(play.takeUpstreamText() == "\u{81}\u{82}maskhi")
        #expect(try play.eventKinds().contains("tunnel.opened"))
        play.expect(["arm responseHead 60s", "cancel responseHead"])
    }

    @Test func refusedUpgradeStaysHTTP() {
        var play = Playbook()
        play.client(
            "GET http://ws.test/chat HTTP/1.1\r\nHost: ws.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
        play.connected()
        play.upstream("HTTP/1.1 400 Bad Request\r\nContent-Length: 2\r\n\r\nno")
        #expect(play.takeClientText().hasSuffix("no"))
        play.expect(
            [Lines.idle, "cancel clientIdle", "connect http://ws.test:80 http1-only", "arm responseHead 60s"]
                + Lines.pooled)
    }

    @Test func failedConnectAnswers502() throws {
        var play = Playbook()
        play.client("CONNECT down.test:443 HTTP/1.1\r\nHost: down.test:443\r\n\r\n")
        play.connectFailed(.connectRefused("down.test:443", "Connection refused"))
        let answer = ParsedMessage(play.takeClientText())
        #expect(answer.startLine == "HTTP/1.1 502 Bad Gateway")
        #expect(answer.values("X-Faultline-Error") == ["connect-failed"])
        #expect(try play.eventKinds().contains("upstream.error"))
        play.expect([
            Lines.idle, "cancel clientIdle", "connect tcp://down.test:443", "cancel clientIdle",
            "close client after flush",
        ])
    }
}
