import FaultlineFlow
import FaultlineHTTP1
import FaultlineProxy
import FaultlineTrace
import Testing

@Suite struct ForwardingTests {
    static let simpleGET =
        "GET http://api.example.test:8080/v1/me?x=1 HTTP/1.1\r\nHost: api.example.test:8080\r\n"
        + "Authorization: Bearer secret-token\r\nAccept: */*\r\n\r\n"

    @Test func absoluteFormIsRewrittenToOriginFormAndTraced() throws {
        var play = Playbook()
        play.client(Self.simpleGET)
        play.expect([Lines.idle, "cancel clientIdle", "connect http://api.example.test:8080"])
        #expect(play.upstreamText.isEmpty, "nothing is written before the connection exists")

        play.connected()
        let sent = ParsedMessage(play.takeUpstreamText())
        #expect(sent.startLine == "GET /v1/me?x=1 HTTP/1.1")
        #expect(sent.values("Host") == ["api.example.test:8080"])
        #expect(sent.values("Authorization") == ["Bearer secret-token"])
        #expect(sent.values("Via") == ["1.1 faultline"])

        play.upstream("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nSet-Cookie: sid=abc\r\n\r\nhello")
        let delivered = ParsedMessage(play.takeClientText())
        #expect(delivered.startLine == "HTTP/1.1 200 OK")
        #expect(delivered.values("Content-Length") == ["5"])
        #expect(delivered.body == "hello")
        play.expect(["arm responseHead 60s"] + Lines.pooled)

        #expect(
            try play.eventKinds() == [
                "request.received", "request.forwarded", "response.received", "response.delivered",
            ])
        let events = try play.events()
        #expect(events.map(\.seq) == [1, 2, 3, 4])
        #expect(Set(events.compactMap(\.flow)).count == 1)
        #expect(events[0].string("method") == "GET")
        #expect(events[0].string("path") == "/v1/me")
        #expect(events[0].int("port") == 8080)
        #expect(events[2].int("status") == 200)
        #expect(events[3].body("body")?.length == 5)
        let text = play.trace.memoryContents()
        #expect(!text.contains("secret-token"))
        #expect(!text.contains("sid=abc"))
    }

    @Test func hopByHopFieldsAreRemovedBothWays() {
        var play = Playbook()
        play.client(
            "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\n"
                + "Keep-Alive: timeout=5\r\nProxy-Connection: keep-alive\r\nProxy-Authorization: Basic eA==\r\n"
                + "TE: trailers\r\nX-End: kept\r\n\r\n")
        play.connected()
        let sent = ParsedMessage(play.takeUpstreamText())
        for name in ["Connection", "X-Hop", "Keep-Alive", "Proxy-Connection", "Proxy-Authorization", "TE"] {
            #expect(sent.values(name).isEmpty, "\(name) must not be forwarded")
        }
        #expect(sent.values("X-End") == ["kept"])

        play.upstream(
            "HTTP/1.1 200 OK\r\nConnection: X-Secret-Hop\r\nX-Secret-Hop: 1\r\nKeep-Alive: timeout=1\r\n"
                + "Proxy-Authenticate: Basic\r\nContent-Length: 0\r\nX-Origin: yes\r\n\r\n")
        let delivered = ParsedMessage(play.takeClientText())
        for name in ["X-Secret-Hop", "Keep-Alive", "Proxy-Authenticate"] {
            #expect(delivered.values(name).isEmpty, "\(name) must not be relayed")
        }
        #expect(delivered.values("X-Origin") == ["yes"])
        play.expect(Lines.opened("http://a.test:80") + Lines.pooled)
    }

    @Test func pipelinedRequestsAreServedInOrderOnePerExchange() throws {
        var play = Playbook()
        play.client(
            "GET http://a.test/one HTTP/1.1\r\nHost: a.test\r\n\r\nGET http://a.test/two HTTP/1.1\r\nHost: a.test\r\n\r\n"
        )
        play.connected()
        #expect(ParsedMessage(play.takeUpstreamText()).startLine == "GET /one HTTP/1.1")
        play.upstream("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none")
        #expect(play.takeClientText().hasSuffix("one"))
        // The second request only starts once the first exchange is over.
        play.expect(
            Lines.opened("http://a.test:80") + Lines.pooled + ["cancel clientIdle", "connect http://a.test:80"])
        play.connected(reused: true)
        #expect(ParsedMessage(play.takeUpstreamText()).startLine == "GET /two HTTP/1.1")
        play.upstream("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo")
        #expect(play.takeClientText().hasSuffix("two"))
        let forwarded = try play.events().filter { $0.kind == .requestForwarded }
        #expect(forwarded.map { $0.bool("reused") } == [false, true])
        play.expect(["arm responseHead 60s"] + Lines.pooled)
    }

    /// Chunk boundaries follow the reads, so the upstream bytes are compared decoded.
    @Test func everySplitOfTheRequestForwardsTheSameMessage() throws {
        let request = Array(
            ("POST http://a.test/upload HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Sum: 1\r\n\r\n").utf8)
        var whole = Playbook()
        whole.client(request)
        whole.connected()
        #expect(whole.upstreamText.hasSuffix("5\r\nhello\r\n6\r\n world\r\n0\r\nX-Sum: 1\r\n\r\n"))
        let expected = try DecodedRequest(whole.toUpstream)
        #expect(expected.body == "hello world")
        #expect(expected.trailers == [("X-Sum", "1")])
        for split in 1..<request.count {
            var play = Playbook()
            play.client(Array(request[..<split]))
            play.connectIfRequested()
            play.client(Array(request[split...]))
            play.connectIfRequested()
            #expect(try DecodedRequest(play.toUpstream) == expected, "split at \(split)")
            play.expect(Lines.opened("http://a.test:80"))
        }
        whole.expect(Lines.opened("http://a.test:80"))
    }

    @Test func reverseModeSendsOriginFormToTheFixedUpstream() throws {
        let upstream = UpstreamEndpoint(scheme: "http", host: "127.0.0.1", port: 3000)
        var play = Playbook(mode: .reverse(upstream))
        play.client("GET /v1/items?page=2 HTTP/1.1\r\nHost: faultline.local:9000\r\n\r\n")
        play.expect([Lines.idle, "cancel clientIdle", "connect http://127.0.0.1:3000"])
        play.connected()
        let sent = ParsedMessage(play.takeUpstreamText())
        #expect(sent.startLine == "GET /v1/items?page=2 HTTP/1.1")
        #expect(sent.values("Host") == ["127.0.0.1:3000"])
        let received = try #require(try play.events().first)
        #expect(received.string("url") == "http://127.0.0.1:3000/v1/items?page=2")
        play.expect(["arm responseHead 60s"])
    }

    @Test func keepAliveClientReturnsToIdleAndArmsTheIdleTimer() {
        var play = Playbook()
        play.expect([Lines.idle])
        play.client("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n")
        play.connected()
        play.upstream("HTTP/1.1 204 No Content\r\n\r\n")
        play.expect(["cancel clientIdle", "connect http://a.test:80", "arm responseHead 60s"] + Lines.pooled)
        play.fire(.clientIdle)
        play.expect(["cancel clientIdle", "close client after flush"])
        #expect(play.session.closeReason == "idle-timeout")
    }

    @Test func viaLoopIsRefusedWith508() throws {
        var play = Playbook()
        play.client("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nVia: 1.1 faultline\r\n\r\n")
        #expect(ParsedMessage(play.takeClientText()).startLine == "HTTP/1.1 508 Loop Detected")
        play.expect([Lines.idle, "cancel clientIdle", "cancel clientIdle", "close client after flush"])
    }
}
