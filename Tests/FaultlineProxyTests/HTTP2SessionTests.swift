import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineHTTP2
import FaultlineProxy
import FaultlineRules
import FaultlineTrace
import Testing

/// The HTTP/2 client side (`HTTP2ProxySession`) through `HTTP2Playbook`: one flow and one
/// HTTP/1.1 upstream per stream, answers as HEADERS/DATA/trailers, resets and GOAWAY.
@Suite struct HTTP2SessionTests {
    static let ok5 = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"

    // MARK: One exchange

    @Test func getOnOneStreamGoesUpstreamAsHTTP1AndComesBackAsHeadersAndData() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("GET", "/v1/items?page=2", fields: [("accept", "*/*"), ("x-request-id", "r1")])
        #expect(id == 1)
        let flow = try play.flow(ofStream: id)
        let upstream = try play.upstream(of: flow)
        #expect(upstream.endpoint == HTTP2Playbook.origin)
        #expect(!upstream.fresh)
        #expect(upstream.written.isEmpty, "nothing is written before the connection exists")

        play.connected(flow: flow)
        let sent = try play.upstreamRequest(of: flow)
        let head = try #require(sent.head)
        #expect(head.method == "GET")
        #expect(head.target == "/v1/items?page=2")
        #expect(head.version == .http1_1)
        // A reverse listener names its upstream, not the client's :authority (keepsClientHost off).
        #expect(head.headers.values(name: "host") == ["127.0.0.1:3000"])
        #expect(head.headers.values(name: "accept") == ["*/*"])
        #expect(head.headers.values(name: "x-request-id") == ["r1"])
        // Via names the protocol the request was received with (RFC 9110 §7.6.3).
        #expect(head.headers.values(name: "via") == ["2 faultline"])
        #expect(
            play.upstreams[flow]?.writtenText.hasPrefix("GET /v1/items?page=2 HTTP/1.1\r\nHost: 127.0.0.1:3000\r\n")
                == true)

        play.upstream(
            flow: flow,
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\nKeep-Alive: timeout=5\r\n"
                + "Content-Type: text/plain\r\nX-Origin: yes\r\n\r\nhello")
        let answer = play.stream(id)
        #expect(answer.status == 200)
        #expect(answer.fieldNames.first == ":status")
        #expect(answer.field("content-length") == ["5"])
        #expect(answer.field("content-type") == ["text/plain"])
        #expect(answer.field("x-origin") == ["yes"])
        for name in ["connection", "keep-alive", "x-hop", "transfer-encoding"] {
            #expect(answer.field(name).isEmpty, "\(name) is connection-specific (RFC 9113 §8.2.2)")
        }
        #expect(answer.bodyText == "hello")
        #expect(answer.ended)
        #expect(answer.reset == nil)
        #expect(answer.closed == .noError)
        #expect(play.upstreams[flow]?.released == true, "a complete keep-alive exchange pools its connection")
        #expect(play.upstreams[flow]?.closed == false)
        #expect(!play.clientConnectionClosed)
        #expect(play.goAways.isEmpty)
        play.expect(Lines.opened(h2: "f1") + Lines.pooled(h2: "f1"))
    }

    @Test(arguments: [false, true])
    func hostComesFromTheUpstreamOrFromAuthorityWhenTheClientHostIsKept(keepsClientHost: Bool) throws {
        var play = try HTTP2Playbook { $0.keepsClientHost = keepsClientHost }
        let id = try play.request("GET", "/", authority: "shop.example:8443")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        let head = try #require(try play.upstreamRequest(of: flow).head)
        #expect(head.headers.values(name: "host") == [keepsClientHost ? "shop.example:8443" : "127.0.0.1:3000"])
        play.expect(Lines.opened(h2: "f1"))
    }

    @Test func forwardModeRoutesByAuthority() throws {
        var play = try HTTP2Playbook(mode: .forward)
        let id = try play.request("GET", "/x?y=1", authority: "api.example.test:8080")
        let flow = try play.flow(ofStream: id)
        #expect(
            play.upstreams[flow]?.endpoint == UpstreamEndpoint(scheme: "http", host: "api.example.test", port: 8080))
        play.connected(flow: flow)
        let head = try #require(try play.upstreamRequest(of: flow).head)
        #expect(head.target == "/x?y=1")
        #expect(head.headers.values(name: "host") == ["api.example.test:8080"])
        play.expect(Lines.opened(h2: "f1", "http://api.example.test:8080"))
    }

    @Test func chunkedResponseBecomesDataWithoutChunkFramingAndTrailersBecomeTrailers() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("GET", "/stream")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(
            flow: flow, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n5\r\nhello\r\n")
        #expect(play.stream(id).status == 200)
        #expect(play.stream(id).field("transfer-encoding").isEmpty)
        #expect(play.stream(id).field("content-length").isEmpty, "the length is not known")
        #expect(play.stream(id).bodyText == "hello")
        #expect(!play.stream(id).ended)
        play.upstream(flow: flow, "6;ext=1\r\n world\r\n0\r\nX-Sum: 42\r\n\r\n")
        let answer = play.stream(id)
        #expect(answer.bodyText == "hello world", "no chunk sizes, extensions or CRLFs")
        #expect(answer.trailers == [HTTP2Header("x-sum", "42")])
        #expect(answer.ended)
        #expect(answer.closed == .noError)
        play.expect(Lines.opened(h2: "f1") + Lines.pooled(h2: "f1"))
    }

    @Test func chunkedResponseWithoutTrailersEndsWithEndStream() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("GET", "/stream")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
        #expect(play.stream(id).bodyText == "abc")
        #expect(play.stream(id).trailers == nil)
        #expect(play.stream(id).ended)
        #expect(play.stream(id).closed == .noError)
        play.expect(Lines.opened(h2: "f1") + Lines.pooled(h2: "f1"))
    }

    @Test func closeDelimitedResponseEndsTheStreamAtUpstreamEOF() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("GET", "/old")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\npartial ")
        play.upstream(flow: flow, "and the rest")
        #expect(!play.stream(id).ended)
        play.upstreamEOF(flow: flow)
        #expect(play.stream(id).bodyText == "partial and the rest")
        #expect(play.stream(id).ended)
        #expect(play.stream(id).reset == nil)
        #expect(play.upstreams[flow]?.closed == true, "a close-delimited response's connection is not pooled")
        play.expect(Lines.opened(h2: "f1") + ["f1 cancel responseHead", "f1 close upstream", Lines.idle])
    }

    @Test func responseWithoutBodyEndsTheStreamOnItsHeaders() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("GET", "/empty")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, "HTTP/1.1 204 No Content\r\nX-A: 1\r\n\r\n")
        #expect(play.stream(id).heads.count == 1)
        #expect(play.stream(id).status == 204)
        #expect(play.stream(id).ended)
        #expect(play.stream(id).dataEvents == 0)
        play.expect(Lines.opened(h2: "f1") + Lines.pooled(h2: "f1"))
    }

    @Test func informationalResponsesGoOutAsTheirOwnHeadersBeforeTheFinalOne() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("GET", "/hints")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(
            flow: flow,
            "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        )
        let answer = play.stream(id)
        #expect(answer.heads.map { HTTP2Headers.status($0) } == [103, 200])
        #expect(answer.heads.first?.contains(HTTP2Header("link", "</a.css>; rel=preload")) == true)
        #expect(answer.bodyText == "ok")
        #expect(answer.ended)
        play.expect(Lines.opened(h2: "f1") + Lines.pooled(h2: "f1"))
    }

    @Test func cookieCrumbsAreJoinedIntoOneFieldForTheUpstream() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("GET", "/", fields: [("cookie", "a=1"), ("accept", "*/*"), ("cookie", "b=2")])
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        let head = try #require(try play.upstreamRequest(of: flow).head)
        #expect(head.headers.values(name: "cookie") == ["a=1; b=2"], "RFC 9113 §8.2.3")
        #expect(!play.trace.memoryContents().contains("a=1"), "cookies are redacted in the trace")
        play.expect(Lines.opened(h2: "f1"))
    }

    /// The HTTP/1 framing passes on the `Content-Length` of a response without a body (HEAD,
    /// 304: RFC 9110 §8.6, §15.4.5); the HTTP/2 framing must too.
    @Test(arguments: [
        ("HEAD", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"),
        ("GET", "HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\nETag: \"v1\"\r\n\r\n"),
    ])
    func responseWithoutBodyKeepsItsContentLength(method: String, response: String) throws {
        var play = try HTTP2Playbook()
        let id = try play.request(method, "/doc")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, response)
        #expect(play.stream(id).ended)
        #expect(play.stream(id).body.isEmpty)
        #expect(play.stream(id).field("content-length") == ["100"])
        play.expect(Lines.opened(h2: "f1") + Lines.pooled(h2: "f1"))
    }

    /// RFC 9110 §7.6.3: a proxy MUST add Via to each message it forwards; the HTTP/1 framing
    /// adds `Via: 1.1 faultline` to responses.
    @Test func responseCarriesTheProxysVia() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("GET", "/")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nVia: 1.0 cache\r\n\r\n")
        #expect(play.stream(id).field("via").first == "1.0 cache", "the upstream's Via is relayed")
        #expect(play.stream(id).field("via").contains("1.1 faultline"))
        play.expect(Lines.opened(h2: "f1") + Lines.pooled(h2: "f1"))
    }

    // MARK: Request bodies

    @Test func postBodyInSeveralDataFramesWithContentLengthReachesUpstreamIntact() throws {
        var play = try HTTP2Playbook()
        let id = try play.request(
            "POST", "/upload", fields: [("content-type", "text/plain"), ("content-length", "16")], body: "hello",
            endStream: false)
        let flow = try play.flow(ofStream: id)
        play.send(stream: id, " wide")
        play.connected(flow: flow)  // what came before the connection is written first
        play.send(stream: id, " world", endStream: true)
        let sent = try play.upstreamRequest(of: flow)
        #expect(sent.head?.method == "POST")
        #expect(sent.head?.headers.values(name: "content-length") == ["16"])
        #expect(sent.head?.headers.values(name: "transfer-encoding") == [])
        #expect(sent.body == "hello wide world")
        play.upstream(flow: flow, "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")
        #expect(play.stream(id).status == 201)
        #expect(play.stream(id).ended)
        // The body's clock runs from the head until END_STREAM (HTTP2BodyTimeoutTests).
        play.expect(
            [
                Lines.idle, "f1 connect http://127.0.0.1:3000", "arm streamBody(1) 60s", "cancel clientIdle",
                "arm streamBody(1) 60s", "f1 arm responseHead 60s", "cancel streamBody(1)",
            ] + Lines.pooled(h2: "f1"))
    }

    @Test func postBodyWithoutContentLengthGoesUpstreamChunkedWithItsTrailers() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("POST", "/upload", body: "abc", endStream: false)
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.send(stream: id, "defg")
        play.sendTrailers(stream: id, [("x-checksum", "7")])
        let sent = try play.upstreamRequest(of: flow)
        #expect(sent.head?.headers.values(name: "transfer-encoding") == ["chunked"])
        #expect(sent.head?.headers.values(name: "content-length") == [])
        #expect(sent.body == "abcdefg")
        #expect(sent.trailers?.values(name: "x-checksum") == ["7"])
        #expect(play.upstreams[flow]?.writtenText.hasSuffix("0\r\nx-checksum: 7\r\n\r\n") == true)
        play.expect([
            Lines.idle, "f1 connect http://127.0.0.1:3000", "arm streamBody(1) 60s", "cancel clientIdle",
            "arm streamBody(1) 60s", "f1 arm responseHead 60s", "cancel streamBody(1)",
        ])
    }

    @Test func requestDataIsCreditedBackToTheClientOnceTheFlowTookIt() throws {
        var limits = HTTP2Connection.Limits()
        limits.initialWindowSize = 1024
        var play = try HTTP2Playbook(sessionLimits: limits)
        let chunk = String(repeating: "x", count: 1000)
        let id = try play.request("POST", "/big", body: chunk, endStream: false)
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        // 1,000 bytes were credited; 3,000 more only fit in a 1,024-byte window if they were.
        for _ in 0..<3 { play.send(stream: id, chunk) }
        play.send(stream: id, "", endStream: true)
        #expect(try play.upstreamRequest(of: flow).body.count == 4000)
        play.expect([
            Lines.idle, "f1 connect http://127.0.0.1:3000", "arm streamBody(1) 60s", "cancel clientIdle",
            "arm streamBody(1) 60s", "arm streamBody(1) 60s", "arm streamBody(1) 60s", "f1 arm responseHead 60s",
            "cancel streamBody(1)",
        ])
    }

    // MARK: Streams side by side

    @Test func threeConcurrentStreamsEachGetTheirOwnUpstreamAndAnswerInAnyOrder() throws {
        var play = try HTTP2Playbook()
        let ids = try ["/a", "/b", "/c"].map { try play.request("GET", $0) }
        #expect(ids == [1, 3, 5])
        let flows = try ids.map { try play.flow(ofStream: $0) }
        #expect(Set(flows).count == 3)
        #expect(play.flowsByConnectOrder == flows, "each stream asks for its own upstream at once")
        #expect(flows.allSatisfy { play.upstreams[$0]?.pending == true })
        play.connected(flow: flows[2])
        play.connected(flow: flows[0])
        play.connected(flow: flows[1])
        for (flow, path) in zip(flows, ["/a", "/b", "/c"]) {
            #expect(try play.upstreamRequest(of: flow).head?.target == path)
        }
        // Answers out of order, and the middle one in two reads around the others.
        play.upstream(flow: flows[1], "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nbb")
        play.upstream(flow: flows[2], "HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\ncc")
        play.upstream(flow: flows[0], "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\naa")
        #expect(!play.stream(ids[1]).ended)
        play.upstream(flow: flows[1], "bbbb")
        #expect(ids.map { play.stream($0).status } == [201, 200, 404])
        #expect(ids.map { play.stream($0).bodyText } == ["aa", "bbbbbb", "cc"])
        #expect(ids.allSatisfy { play.stream($0).ended && play.stream($0).reset == nil })
        #expect(flows.allSatisfy { play.upstreams[$0]?.released == true })
        let delivered = try play.events().filter { $0.kind == .responseDelivered }
        #expect(delivered.compactMap(\.flow) == [flows[2], flows[0], flows[1]])
        #expect(delivered.map { $0.int("status") } == [404, 201, 200])
        play.expect([
            Lines.idle, "f1 connect http://127.0.0.1:3000", "cancel clientIdle", "f2 connect http://127.0.0.1:3000",
            "f3 connect http://127.0.0.1:3000", "f3 arm responseHead 60s", "f1 arm responseHead 60s",
            "f2 arm responseHead 60s", "f2 cancel responseHead", "f3 cancel responseHead", "f3 release upstream",
            "f1 cancel responseHead", "f1 release upstream", "f2 release upstream", Lines.idle,
        ])
    }

    @Test func holdOnOneStreamLeavesTheOthersAloneUntilReleased() throws {
        let rules = ruleSet(
            #"{ rules: [{ name: "gate", match: { path: "/slow" }, actions: [{ hold: { name: "slow-gate" } }] }] }"#)
        var play = try HTTP2Playbook(ruleSet: rules)
        let ids = try ["/a", "/slow", "/b"].map { try play.request("GET", $0) }
        let flows = try ids.map { try play.flow(ofStream: $0) }
        let held = try #require(play.holds[flows[1]])
        #expect(held.name == "slow-gate")
        #expect(play.holds.count == 1)
        #expect(play.upstreams[flows[1]] == nil, "a held request does not go upstream")
        for index in [0, 2] {
            play.connected(flow: flows[index])
            play.upstream(flow: flows[index], Self.ok5)
            #expect(play.stream(ids[index]).status == 200)
            #expect(play.stream(ids[index]).ended)
        }
        #expect(play.stream(ids[1]).heads.isEmpty, "the held stream has no answer yet")
        #expect(play.stream(ids[1]).closed == nil)

        play.endHold(flow: flows[1], .release(nil))
        #expect(play.upstreams[flows[1]]?.pending == true)
        play.connected(flow: flows[1])
        #expect(try play.upstreamRequest(of: flows[1]).head?.target == "/slow")
        play.upstream(flow: flows[1], "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nslow")
        #expect(play.stream(ids[1]).bodyText == "slow")
        #expect(play.stream(ids[1]).ended)
        let kinds = try play.eventKinds(of: flows[1])
        #expect(kinds.contains("hold.started") && kinds.contains("hold.ended"))
        #expect(kinds.last == "response.delivered")
        play.expect(
            [
                Lines.idle, "cancel clientIdle", "f1 connect http://127.0.0.1:3000", "fired test/gate",
                "f2 hold slow-gate (request)", "f3 connect http://127.0.0.1:3000", "f1 arm responseHead 60s",
                "f1 cancel responseHead", "f1 release upstream", "f3 arm responseHead 60s", "f3 cancel responseHead",
                "f3 release upstream", "f2 connect http://127.0.0.1:3000", "f2 arm responseHead 60s",
            ] + Lines.pooled(h2: "f2"))
    }

    @Test func holdReleasedWithAResponseAnswersOnItsStream() throws {
        let rules = ruleSet(#"{ rules: [{ name: "gate", actions: [{ hold: { name: "g" } }] }] }"#)
        var play = try HTTP2Playbook(ruleSet: rules)
        let id = try play.request("GET", "/x")
        let flow = try play.flow(ofStream: id)
        play.endHold(flow: flow, .release(SyntheticResponse(status: 503, body: Array("busy".utf8))))
        #expect(play.stream(id).status == 503)
        #expect(play.stream(id).bodyText == "busy")
        #expect(play.stream(id).ended)
        #expect(play.upstreams[flow] == nil)
        play.expect([Lines.idle, "cancel clientIdle", "fired test/gate", "f1 hold g (request)", Lines.idle])
    }

    @Test func failedHoldResetsItsStreamOnly() throws {
        let rules = ruleSet(
            #"{ rules: [{ name: "gate", match: { path: "/held" }, actions: [{ hold: { name: "g" } }] }] }"#)
        var play = try HTTP2Playbook(ruleSet: rules)
        let held = try play.request("GET", "/held")
        let other = try play.request("GET", "/other")
        play.endHold(flow: try play.flow(ofStream: held), .fail)
        #expect(play.stream(held).reset == .internalError)
        play.expect([
            Lines.idle, "cancel clientIdle", "fired test/gate", "f1 hold g (request)",
            "f2 connect http://127.0.0.1:3000",
        ])
        let flow = try play.flow(ofStream: other)
        play.connected(flow: flow)
        play.upstream(flow: flow, Self.ok5)
        #expect(play.stream(other).status == 200)
        #expect(play.goAways.isEmpty)
        play.expect(["f2 arm responseHead 60s"] + Lines.pooled(h2: "f2"))
    }

    @Test func heldRequestBodyStopsOnlyItsOwnStream() throws {
        var sessionLimits = HTTP2Connection.Limits()
        sessionLimits.initialWindowSize = 2048
        let rules = ruleSet(
            #"{ rules: [{ name: "gate", match: { path: "/held" }, actions: [{ hold: { name: "g" } }] }] }"#)
        var play = try HTTP2Playbook(ruleSet: rules, sessionLimits: sessionLimits) {
            $0.maximumPendingUpstreamBytes = 1024
        }
        let chunk = String(repeating: "h", count: 1000)
        let held = try play.request(
            "POST", "/held", fields: [("content-length", "8000")], body: chunk, endStream: false)
        for _ in 0..<7 { play.send(stream: held, chunk) }
        // The flow keeps what it got; the client's stream window is not credited beyond it.
        #expect(play.client.bufferedOutboundBytes(stream: held) >= 8000 - 2048 - 1024, "the client is stopped")
        // Another stream's body flows meanwhile: the connection is not stopped.
        let other = try play.request("POST", "/other", body: String(repeating: "o", count: 6000))
        let otherFlow = try play.flow(ofStream: other)
        play.connected(flow: otherFlow)
        #expect(try play.upstreamRequest(of: otherFlow).body.count == 6000)

        let heldFlow = try play.flow(ofStream: held)
        play.endHold(flow: heldFlow, .release(nil))
        play.connected(flow: heldFlow)
        #expect(play.client.bufferedOutboundBytes(stream: held) == 0)
        #expect(try play.upstreamRequest(of: heldFlow).body == String(repeating: "h", count: 8000))
        // Stream 1's clock starts again with each DATA; stream 3's stops at its END_STREAM.
        play.expect([
            Lines.idle, "arm streamBody(1) 60s", "cancel clientIdle", "fired test/gate", "f1 hold g (request)",
            "arm streamBody(1) 60s", "arm streamBody(1) 60s", "arm streamBody(3) 60s",
            "f2 connect http://127.0.0.1:3000", "arm streamBody(3) 60s", "f2 arm responseHead 60s",
            "cancel streamBody(3)", "f1 connect http://127.0.0.1:3000", "arm streamBody(1) 60s",
            "arm streamBody(1) 60s", "arm streamBody(1) 60s",
        ])
    }

    @Test func heldResponsePausesOnlyThatFlowsUpstream() throws {
        let rules = ruleSet(
            #"{ rules: [{ name: "late", phase: "response", match: { path: "/held" }, actions: [{ hold: { name: "r" } }] }] }"#
        )
        var play = try HTTP2Playbook(ruleSet: rules)
        let held = try play.request("GET", "/held")
        let other = try play.request("GET", "/other")
        let heldFlow = try play.flow(ofStream: held)
        let otherFlow = try play.flow(ofStream: other)
        play.connected(flow: heldFlow)
        play.connected(flow: otherFlow)
        let total = 400 * 1024
        play.upstream(flow: heldFlow, "HTTP/1.1 200 OK\r\nContent-Length: \(total)\r\n\r\n")
        #expect(play.holds[heldFlow] != nil)
        var sent = 0
        while sent < total, !play.upstreamReadsPaused(heldFlow) {
            play.upstream(flow: heldFlow, [UInt8](repeating: 0x61, count: 16 * 1024))
            sent += 16 * 1024
        }
        #expect(sent < total, "reads pause while the response waits behind its hold")
        #expect(play.stream(held).heads.isEmpty)
        #expect(!play.upstreamReadsPaused(otherFlow))
        play.upstream(flow: otherFlow, Self.ok5)
        #expect(play.stream(other).bodyText == "hello")

        play.endHold(flow: heldFlow, .release(nil))
        #expect(!play.upstreamReadsPaused(heldFlow))
        while sent < total {
            play.upstream(flow: heldFlow, [UInt8](repeating: 0x61, count: 16 * 1024))
            sent += 16 * 1024
        }
        #expect(play.stream(held).body.count == total)
        #expect(play.stream(held).ended)
        play.expect([
            Lines.idle, "f1 connect http://127.0.0.1:3000", "cancel clientIdle", "f2 connect http://127.0.0.1:3000",
            "f1 arm responseHead 60s", "f2 arm responseHead 60s", "f1 cancel responseHead", "fired test/late",
            "f1 hold r (response)", "f2 cancel responseHead", "f2 release upstream", "f1 release upstream", Lines.idle,
        ])
    }

    // MARK: Streams that end early

    @Test func clientResetMidResponseEndsThatFlowOnly() throws {
        var play = try HTTP2Playbook()
        let cancelled = try play.request("GET", "/big")
        let other = try play.request("GET", "/small")
        let cancelledFlow = try play.flow(ofStream: cancelled)
        let otherFlow = try play.flow(ofStream: other)
        play.connected(flow: cancelledFlow)
        play.connected(flow: otherFlow)
        play.upstream(flow: cancelledFlow, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nfirst")
        #expect(play.stream(cancelled).bodyText == "first")

        play.reset(stream: cancelled, code: .cancel)
        #expect(play.upstreams[cancelledFlow]?.closed == true, "the flow's upstream is closed, not pooled")
        #expect(play.upstreams[cancelledFlow]?.released == false)
        let aborted = try #require(try play.events(of: cancelledFlow).first { $0.kind.rawValue == "flow.aborted" })
        #expect(aborted.string("reason")?.contains("reset stream \(cancelled)") == true)
        #expect(try !play.eventKinds(of: cancelledFlow).contains("response.delivered"))
        // Late bytes of the cancelled flow's upstream go nowhere.
        play.upstream(flow: cancelledFlow, "rest!")
        #expect(play.stream(cancelled).bodyText == "first")

        play.upstream(flow: otherFlow, Self.ok5)
        #expect(play.stream(other).status == 200)
        #expect(play.stream(other).bodyText == "hello")
        #expect(play.upstreams[otherFlow]?.released == true)
        #expect(try !play.eventKinds(of: otherFlow).contains("flow.aborted"))
        #expect(!play.clientConnectionClosed)
        play.expect(
            [
                Lines.idle, "f1 connect http://127.0.0.1:3000", "cancel clientIdle", "f2 connect http://127.0.0.1:3000",
                "f1 arm responseHead 60s", "f2 arm responseHead 60s", "f1 cancel responseHead", "f1 close upstream",
            ] + Lines.pooled(h2: "f2"))
    }

    @Test func clientResetBeforeTheConnectionExistsClosesItWhenItComes() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("GET", "/x")
        let flow = try play.flow(ofStream: id)
        play.reset(stream: id)
        #expect(try play.eventKinds(of: flow).contains("flow.aborted"))
        #expect(play.upstreams[flow]?.pending == true)
        play.expect([
            Lines.idle, "f1 connect http://127.0.0.1:3000", "cancel clientIdle", "f1 close upstream", Lines.idle,
        ])
        play.connected(flow: flow)
        play.expect(["f1 close upstream"])
        #expect(play.upstreams[flow]?.written.isEmpty == true)
    }

    @Test func upstreamConnectFailureAnswers502OnThatStreamOnly() throws {
        var play = try HTTP2Playbook()
        let failing = try play.request("GET", "/down")
        let other = try play.request("GET", "/up")
        let failingFlow = try play.flow(ofStream: failing)
        play.connectFailed(flow: failingFlow, .connectRefused("127.0.0.1:3000", "connection refused"))
        let answer = play.stream(failing)
        #expect(answer.status == 502)
        #expect(answer.field("x-faultline-error") == ["connect-failed"])
        #expect(answer.bodyText.hasPrefix("faultline: "))
        #expect(answer.ended)
        #expect(answer.reset == nil)
        let error = try #require(try play.events(of: failingFlow).first { $0.kind == .upstreamError })
        #expect(error.string("code") == "connect-failed")

        let otherFlow = try play.flow(ofStream: other)
        play.connected(flow: otherFlow)
        play.upstream(flow: otherFlow, Self.ok5)
        #expect(play.stream(other).status == 200)
        #expect(!play.clientConnectionClosed)
        #expect(play.goAways.isEmpty)
        play.expect(
            [
                Lines.idle, "f1 connect http://127.0.0.1:3000", "cancel clientIdle", "f2 connect http://127.0.0.1:3000",
                "f1 close upstream", "f2 arm responseHead 60s",
            ] + Lines.pooled(h2: "f2"))
    }

    @Test func responseTimeoutAnswers504OnThatStreamOnly() throws {
        var play = try HTTP2Playbook()
        let slow = try play.request("GET", "/slow")
        let fast = try play.request("GET", "/fast")
        let slowFlow = try play.flow(ofStream: slow)
        let fastFlow = try play.flow(ofStream: fast)
        play.connected(flow: slowFlow)
        play.connected(flow: fastFlow)
        play.fire(.responseHead, flow: slowFlow)
        #expect(play.stream(slow).status == 504)
        #expect(play.upstreams[slowFlow]?.closed == true)
        #expect(play.isArmed(.responseHead, flow: fastFlow), "the other flow's timer stays armed")
        play.upstream(flow: fastFlow, Self.ok5)
        #expect(play.stream(fast).status == 200)
        play.expect(
            [
                Lines.idle, "f1 connect http://127.0.0.1:3000", "cancel clientIdle", "f2 connect http://127.0.0.1:3000",
                "f1 arm responseHead 60s", "f2 arm responseHead 60s", "f1 close upstream",
            ] + Lines.pooled(h2: "f2"))
    }

    @Test func pooledConnectionFoundClosedIsReplacedOnceByAFreshOne() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("GET", "/retry")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow, reused: true)
        play.upstreamEOF(flow: flow)  // closed before any response byte (RFC 9112 §9.3.1)
        let upstream = try play.upstream(of: flow)
        #expect(upstream.connectRequests == 2)
        #expect(upstream.fresh)
        #expect(upstream.pending)
        #expect(play.stream(id).heads.isEmpty, "the client sees nothing of the retry")
        play.connected(flow: flow)
        play.upstream(flow: flow, Self.ok5)
        #expect(play.stream(id).bodyText == "hello")
        #expect(try play.upstreamRequest(of: flow).head?.target == "/retry")
        play.expect(
            Lines.opened(h2: "f1") + [
                "f1 cancel responseHead", "f1 close upstream", "f1 connect http://127.0.0.1:3000 fresh",
                "f1 arm responseHead 60s",
            ] + Lines.pooled(h2: "f1"))
    }

    @Test func upstreamCutMidBodyResetsThatStream() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("GET", "/cut")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
        play.upstreamEOF(flow: flow)
        #expect(play.stream(id).status == 200)
        #expect(play.stream(id).bodyText == "abc")
        #expect(play.stream(id).reset == .internalError, "a truncated answer is a reset stream, never END_STREAM")
        #expect(!play.stream(id).ended)
        #expect(!play.clientConnectionClosed)
        play.expect(Lines.opened(h2: "f1") + ["f1 cancel responseHead", "f1 close upstream", Lines.idle])
    }

    @Test(arguments: ["reset", "close-before-response"])
    func requestFaultResetsThatStreamWithInternalErrorAndTheConnectionStays(fault: String) throws {
        let rules = ruleSet(#"{ rules: [{ name: "f", match: { path: "/boom" }, actions: [{ fault: "\#(fault)" }] }] }"#)
        var play = try HTTP2Playbook(ruleSet: rules)
        let boom = try play.request("GET", "/boom")
        #expect(play.stream(boom).reset == .internalError)
        #expect(play.stream(boom).heads.isEmpty)
        let boomFlow = try play.flow(ofStream: boom)
        #expect(play.upstreams[boomFlow] == nil)
        #expect(try play.events(of: boomFlow).contains { $0.string("fault") == fault })
        play.expect([Lines.idle, "cancel clientIdle", "fired test/f", Lines.idle])

        let fine = try play.request("GET", "/fine")
        let fineFlow = try play.flow(ofStream: fine)
        play.connected(flow: fineFlow)
        play.upstream(flow: fineFlow, Self.ok5)
        #expect(play.stream(fine).status == 200)
        #expect(play.goAways.isEmpty)
        #expect(!play.clientConnectionClosed)
        play.expect(
            ["cancel clientIdle", "f2 connect http://127.0.0.1:3000", "f2 arm responseHead 60s"]
                + Lines.pooled(h2: "f2"))
    }

    @Test func malformedChunkFaultResetsWithProtocolError() throws {
        let rules = ruleSet(#"{ rules: [{ name: "m", actions: [{ fault: "malformed-chunk" }] }] }"#)
        var play = try HTTP2Playbook(ruleSet: rules)
        let id = try play.request("GET", "/x")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, Self.ok5)
        #expect(play.stream(id).reset == .protocolError, "DATA has no chunk lines to break")
        #expect(!play.stream(id).ended)
        play.expect(
            Lines.opened(h2: "f1") + ["f1 cancel responseHead", "fired test/m", "f1 close upstream", Lines.idle])
    }

    /// A cut fault gives the client the head and the first bytes of the body, then breaks the
    /// stream (on HTTP/1: the bytes, then a close or RST). The RST_STREAM must not overtake the
    /// HEADERS and DATA queued in the same input.
    @Test(arguments: [
        (#"{ kind: "truncate", bytes: 5 }"#, "{\"use"), (#"{ kind: "close-mid-body", bytes: 3 }"#, "{\"u"),
    ])
    func cutFaultDeliversItsBytesBeforeTheReset(fault: String, delivered: String) throws {
        var play = try HTTP2Playbook(ruleSet: ruleSet(#"{ rules: [{ name: "t", actions: [{ fault: \#(fault) }] }] }"#))
        let id = try play.request("GET", "/x")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, "HTTP/1.1 200 OK\r\nContent-Length: 28\r\n\r\n{\"user\":\"a\",\"token\":\"abcd\"}")
        #expect(play.stream(id).status == 200)
        #expect(play.stream(id).field("content-length") == ["28"], "the framing promises more than comes")
        #expect(play.stream(id).bodyText == delivered)
        #expect(play.stream(id).reset == .internalError)
        #expect(!play.stream(id).ended, "never a complete-looking answer")
        #expect(play.upstreams[flow]?.closed == true)
        play.expect(
            Lines.opened(h2: "f1") + ["f1 cancel responseHead", "fired test/t", "f1 close upstream", Lines.idle])
    }

    /// The reset waits behind the cut's bytes while the client's window holds them back.
    @Test func cutFaultResetWaitsForBytesHeldByFlowControl() throws {
        var clientLimits = HTTP2Connection.Limits()
        clientLimits.initialWindowSize = 3
        var play = try HTTP2Playbook(
            ruleSet: ruleSet(#"{ rules: [{ name: "t", actions: [{ fault: { kind: "truncate", bytes: 5 } }] }] }"#),
            clientLimits: clientLimits)
        play.clientConsumes = false
        let id = try play.request("GET", "/x")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, "HTTP/1.1 200 OK\r\nContent-Length: 28\r\n\r\n{\"user\":\"a\",\"token\":\"abcd\"}")
        #expect(play.stream(id).bodyText == "{\"u")
        #expect(play.stream(id).reset == nil, "two bytes are still to come")
        play.credit(stream: id)
        #expect(play.stream(id).bodyText == "{\"use")
        #expect(play.stream(id).reset == .internalError)
        // The idle timer runs while the stream only waits for the window, and again once no
        // stream is open.
        play.expect(
            Lines.opened(h2: "f1") + [
                "f1 cancel responseHead", "fired test/t", "f1 close upstream", Lines.idle, Lines.idle,
            ])
    }

    @Test func connectionErrorEndsEveryFlowAndClosesAfterItsGoAway() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("GET", "/p")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        // DATA on a stream the client never opened: a connection error (RFC 9113 §5.1).
        play.feed([0, 0, 3, 0x0, 0x1, 0, 0, 0, 99, 1, 2, 3])
        play.pump()
        #expect(play.goAways.map(\.code) == [.protocolError])
        #expect(play.goAwaysBeforeClose == 1)
        play.expect(
            Lines.opened(h2: "f1") + [
                "f1 close upstream", "f1 cancel responseHead", "cancel clientIdle", "close client after flush",
            ])
        #expect(play.sessionIsClosed)
        #expect(play.closeReason == "http2-PROTOCOL_ERROR")
        #expect(play.upstreams[flow]?.closed == true)
        #expect(try play.eventKinds(of: flow).last == "flow.aborted")
        let error = try #require(try play.events().first { $0.kind == .protocolError })
        #expect(error.string("code") == "http2-PROTOCOL_ERROR")
        // The GOAWAY the connection error sent is traced as the proxy's, like any other.
        let goAway = try #require(try play.events().first { $0.kind == .http2GoAway })
        #expect(goAway.string("side") == "proxy" && goAway.string("code") == "PROTOCOL_ERROR")
        #expect(goAway.int("last_stream_id") == Int64(play.goAways.first?.lastStreamID ?? -1))
    }

    // MARK: Requests refused on their stream

    @Test func missingPathIsResetAndTheConnectionServesTheNextStream() throws {
        var play = try HTTP2Playbook()
        let bad = try play.request(
            headers: [
                HTTP2Header(":method", "GET"), HTTP2Header(":scheme", "http"), HTTP2Header(":authority", "app.test"),
            ])
        try expectRefusedAtTheFraming(bad, &play)
        play.expect(Lines.opened(h2: "f1") + Lines.pooled(h2: "f1"))
    }

    @Test func uppercaseFieldNameIsResetAndTheConnectionServesTheNextStream() throws {
        var play = try HTTP2Playbook()
        let bad = try play.malformedRequest([
            (":method", "GET"), (":scheme", "http"), (":authority", "app.test"), (":path", "/"), ("X-Upper", "1"),
        ])
        try expectRefusedAtTheFraming(bad, &play)
        play.expect(Lines.opened(h2: "f1") + Lines.pooled(h2: "f1"))
    }

    /// A request head nghttp2 refuses (RFC 9113 §8.1.1: malformed) never becomes a flow: its
    /// stream is reset with PROTOCOL_ERROR, the trace says why, and the next stream is served.
    private func expectRefusedAtTheFraming(_ bad: Int32, _ play: inout HTTP2Playbook) throws {
        #expect(play.stream(bad).reset == .protocolError)
        #expect(play.stream(bad).heads.isEmpty)
        #expect(play.upstreams.isEmpty)
        let events = try play.events()
        #expect(!events.contains { $0.kind == .requestReceived })
        let error = try #require(events.first { $0.kind == .protocolError })
        #expect(error.string("code") == "http2-stream-error")
        #expect(error.int("stream") == Int64(bad))
        #expect(play.goAways.isEmpty)

        let next = try play.request("GET", "/next")
        let flow = try play.flow(ofStream: next)
        play.connected(flow: flow)
        play.upstream(flow: flow, Self.ok5)
        #expect(play.stream(next).status == 200)
        #expect(play.stream(next).bodyText == "hello")
        #expect(!play.clientConnectionClosed)
    }

    @Test func requestWithHostButNoAuthorityToAForwardListenerIsAnswered400OnItsStream() throws {
        var play = try HTTP2Playbook(mode: .forward)
        // A Host field but no :authority (nghttp2 wants one of them): the request reads as
        // origin-form, which a forward listener refuses as it does on HTTP/1.
        let id = try play.request(
            headers: [
                HTTP2Header(":method", "GET"), HTTP2Header(":scheme", "http"), HTTP2Header(":path", "/x"),
                HTTP2Header("host", "a.test"),
            ])
        #expect(play.stream(id).status == 400)
        #expect(play.stream(id).field("x-faultline-error") == ["origin-form-to-forward-proxy"])
        #expect(play.stream(id).ended)
        #expect(play.upstreams.isEmpty)
        let flow = try play.flow(ofStream: id)
        #expect(try play.eventKinds(of: flow) == ["request.received", "protocol.error", "response.delivered"])
        let next = try play.request("GET", "/next", authority: "a.test")
        #expect(play.upstreams[try play.flow(ofStream: next)] != nil, "the connection serves the next stream")
        play.expect([Lines.idle, "f2 connect http://a.test:80", "cancel clientIdle"])
    }

    /// `:scheme https` to a forward listener is an https origin the proxy fetches over TLS, on
    /// port 443 unless `:authority` names another.
    @Test func httpsSchemeToAForwardListenerGoesToTheOriginOverTLS() throws {
        var play = try HTTP2Playbook(mode: .forward)
        let id = try play.request("GET", "/x", authority: "a.test", scheme: "https")
        let upstream = try #require(play.upstreams[try play.flow(ofStream: id)])
        #expect(upstream.endpoint == UpstreamEndpoint(scheme: "https", host: "a.test", port: 443))
        play.expect([Lines.idle, "f1 connect https://a.test:443", "cancel clientIdle"])
    }

    @Test func anotherSchemeToAForwardListenerIsAnswered501OnItsStream() throws {
        var play = try HTTP2Playbook(mode: .forward)
        let id = try play.request("GET", "/x", authority: "a.test", scheme: "ftp")
        #expect(play.stream(id).status == 501)
        #expect(play.stream(id).field("x-faultline-error") == ["unsupported-scheme"])
        #expect(play.upstreams.isEmpty)
        play.expect([Lines.idle])
    }

    /// RFC 9113 §8.3.1: `OPTIONS *` carries `:path` "*" with the origin in `:authority`. Sent to
    /// a forward listener it must go to that origin as `OPTIONS * HTTP/1.1`, or be refused; it
    /// must never name a host "a.test*".
    @Test func asteriskOptionsToAForwardListenerNeverGoesToAHostWithAnAsterisk() throws {
        var play = try HTTP2Playbook(mode: .forward)
        let id = try play.request("OPTIONS", "*", authority: "a.test")
        let flow = try play.flow(ofStream: id)
        if let upstream = play.upstreams[flow] {
            #expect(upstream.endpoint.host == "a.test")
        } else {
            #expect(play.stream(id).status.map { $0 >= 400 } == true)
        }
        play.expect([Lines.idle, "f1 connect http://a.test:80", "cancel clientIdle"])
    }

    @Test func connectInReverseModeIsAnswered501OnItsStream() throws {
        var play = try HTTP2Playbook(mode: .reverse(HTTP2Playbook.origin))
        let id = try play.request(
            headers: [HTTP2Header(":method", "CONNECT"), HTTP2Header(":authority", "db.example:5432")], endStream: false
        )
        #expect(play.stream(id).status == 501)
        #expect(play.stream(id).field("x-faultline-error") == ["connect-in-reverse-mode"])
        #expect(play.upstreams.isEmpty, "no tunnel is opened")
        let error = try #require(try play.events().first { $0.kind == .protocolError })
        #expect(error.string("code") == "connect-in-reverse-mode")
        #expect(error.int("status") == 501)
        #expect(!play.clientConnectionClosed)
        play.expect([Lines.idle, "cancel clientIdle"])
    }

    /// RFC 9113 §8.5: the 200 comes once the TCP connection is up; DATA is relayed both ways,
    /// END_STREAM is a FIN each way, and the tunnel ends when both sides have sent theirs.
    @Test func connectOnAForwardListenerTunnelsTheStream() throws {
        var play = try HTTP2Playbook(mode: .forward)
        let id = try play.request(
            headers: [HTTP2Header(":method", "CONNECT"), HTTP2Header(":authority", "db.example:5432")], endStream: false
        )
        let flow = try play.flow(ofStream: id)
        #expect(try play.upstream(of: flow).endpoint == UpstreamEndpoint(scheme: "tcp", host: "db.example", port: 5432))
        play.send(stream: id, "early")
        #expect(play.stream(id).status == nil, "no answer before the connection is up")
        play.connected(flow: flow)
        #expect(play.stream(id).status == 200 && !play.stream(id).ended)
        #expect(try play.upstream(of: flow).writtenText == "early", "what came before the 200 goes up first")
        play.send(stream: id, " ping", endStream: true)
        #expect(try play.upstream(of: flow).writtenText == "early ping")
        play.upstream(flow: flow, "pong")
        #expect(play.stream(id).bodyText == "pong")
        #expect(!(try play.upstream(of: flow).closed))
        play.upstreamEOF(flow: flow)
        #expect(play.stream(id).ended)
        #expect(try play.upstream(of: flow).closed)
        let closed = try #require(try play.events().first { $0.kind == .tunnelClosed })
        #expect(closed.string("reason") == "both-closed")
        #expect(closed.int("bytes_from_client") == 10 && closed.int("bytes_from_upstream") == 4)
        play.expect([
            Lines.idle, "f1 connect tcp://db.example:5432", "cancel clientIdle", "f1 shutdown upstream write",
            "f1 close upstream", Lines.idle,
        ])
    }

    @Test func aConnectWhoseUpstreamBreaksIsResetWithConnectError() throws {
        var play = try HTTP2Playbook(mode: .forward)
        let id = try play.request(
            headers: [HTTP2Header(":method", "CONNECT"), HTTP2Header(":authority", "db.example:5432")], endStream: false
        )
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, "partial")
        play.upstreamClosed(flow: flow)
        #expect(play.stream(id).bodyText == "partial")
        #expect(play.stream(id).reset == .connectError)
        let next = try play.request("GET", "/next", authority: "a.test")
        #expect(play.upstreams[try play.flow(ofStream: next)] != nil, "the connection serves the next stream")
        play.expect([
            Lines.idle, "f1 connect tcp://db.example:5432", "cancel clientIdle", "f1 close upstream", Lines.idle,
            "f2 connect http://a.test:80", "cancel clientIdle",
        ])
    }

    @Test func viaLoopIsAnswered508() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("GET", "/", fields: [("via", "1.1 other, 1.1 faultline")])
        #expect(play.stream(id).status == 508)
        #expect(play.stream(id).field("x-faultline-error") == ["proxy-loop"])
        #expect(play.upstreams.isEmpty)
        #expect(try play.events().contains { $0.kind == .protocolError && $0.string("code") == "proxy-loop" })
        let next = try play.request("GET", "/", fields: [("via", "1.1 other")])
        #expect(play.upstreams[try play.flow(ofStream: next)] != nil, "another proxy in Via is not a loop")
        play.expect([Lines.idle, "f2 connect http://127.0.0.1:3000", "cancel clientIdle"])
    }

    // MARK: The connection's life

    @Test func proxySettingsGoOutBeforeTheClientSpeaks() throws {
        var play = try HTTP2Playbook(handshake: false)
        // RFC 9113 §3.4: the server's preface is its SETTINGS, sent at once.
        let settings = try #require(play.proxySettings)
        #expect(settings.contains(HTTP2Setting(identifier: HTTP2Setting.maxConcurrentStreams, value: 100)))
        #expect(settings.contains(HTTP2Setting(identifier: HTTP2Setting.enablePush, value: 0)))
        #expect(try play.events().isEmpty, "the client's SETTINGS are not there yet")
        #expect(play.isArmed(.clientIdle))
        play.pump()
        #expect(try play.events().map(\.kind) == [.http2Settings])
        play.expect([Lines.idle])
    }

    @Test func idleConnectionGetsGoAwayThenCloses() throws {
        var play = try HTTP2Playbook()
        #expect(play.isArmed(.clientIdle))
        let id = try play.request("GET", "/")
        #expect(!play.isArmed(.clientIdle), "a stream is open")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, Self.ok5)
        #expect(play.isArmed(.clientIdle), "the last stream closed")
        #expect(play.goAways.isEmpty)

        play.fire(.clientIdle)
        #expect(play.goAways.count == 1)
        #expect(play.goAways.first?.code == .noError)
        #expect(play.goAways.first?.lastStreamID == id)
        #expect(play.clientConnectionClosed)
        #expect(play.goAwaysBeforeClose == 1, "the GOAWAY is written before the close")
        play.expect(
            Lines.opened(h2: "f1") + Lines.pooled(h2: "f1") + ["cancel clientIdle", "close client after flush"])
        #expect(play.closeReason == "idle-timeout")
        #expect(play.sessionIsClosed)
        let goAway = try #require(try play.events().first { $0.kind == .http2GoAway })
        #expect(goAway.string("side") == "proxy")
        #expect(goAway.string("code") == "NO_ERROR")
    }

    @Test func clientEOFWithNoStreamsClosesTheConnection() throws {
        var play = try HTTP2Playbook()
        play.clientEOF()
        play.expect([Lines.idle, "cancel clientIdle", "close client after flush"])
        #expect(play.sessionIsClosed)
        #expect(play.closeReason == "client-closed")
        #expect(!play.isArmed(.clientIdle))
    }

    @Test func clientEOFWithAnOpenStreamStillAnswersItThenCloses() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("GET", "/")
        let flow = try play.flow(ofStream: id)
        play.clientEOF()
        #expect(!play.clientConnectionClosed)
        play.connected(flow: flow)
        play.upstream(flow: flow, Self.ok5)
        #expect(play.stream(id).bodyText == "hello")
        #expect(play.clientConnectionClosed)
        #expect(play.closeReason == "client-closed")
        play.expect(
            Lines.opened(h2: "f1") + [
                "f1 cancel responseHead", "f1 release upstream", "cancel clientIdle", "close client after flush",
            ])
    }

    /// On HTTP/1 a client that sends FIN in the middle of a request body gets 400
    /// (incomplete-message) and the connection closes. On HTTP/2 the stream's request can never
    /// end either, but nothing ends its flow: no timer is armed, and even once the upstream has
    /// answered, the stream stays half-open (the client's END_STREAM never comes), so the
    /// session never closes.
    @Test func clientEOFInTheMiddleOfARequestBodyEndsTheFlowAndTheConnection() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("POST", "/p", fields: [("content-length", "10")], body: "abc", endStream: false)
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.clientEOF()
        let kinds = try play.eventKinds(of: flow)
        #expect(kinds.contains("flow.aborted") || kinds.contains("protocol.error"), "the flow ends at the EOF")
        #expect(!play.armed.isEmpty || play.clientConnectionClosed, "something will end the connection")
        play.upstream(flow: flow, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        #expect(play.clientConnectionClosed)
        #expect(play.sessionIsClosed)
        play.expect([
            Lines.idle, "f1 connect http://127.0.0.1:3000", "arm streamBody(1) 60s", "cancel clientIdle",
            "f1 close upstream", "cancel streamBody(1)", "cancel clientIdle", "close client after flush",
        ])
    }

    @Test func clientGoAwayRefusesNewStreamsAndClosesOnceOpenOnesFinish() throws {
        var play = try HTTP2Playbook()
        let open = try play.request("GET", "/open")
        let flow = try play.flow(ofStream: open)
        // A stream the client opened just before its GOAWAY, arriving just after it.
        let late = try play.client.startRequest(
            headers: [
                HTTP2Header(":method", "GET"), HTTP2Header(":scheme", "http"), HTTP2Header(":authority", "app.test"),
                HTTP2Header(":path", "/late"),
            ], endStream: true)
        let lateHeaders = play.takeClientOutput()
        play.client.goAway(code: .noError)
        let goAway = play.takeClientOutput()
        play.feed(goAway)
        play.feed(lateHeaders)
        play.pump()

        #expect(play.stream(late).reset == .refusedStream, "RFC 9113 §8.7: safe to retry elsewhere")
        #expect(try !play.events().contains { $0.kind == .requestReceived && $0.int("stream") == Int64(late) })
        let traced = try #require(try play.events().first { $0.kind == .http2GoAway })
        #expect(traced.string("side") == "client")
        #expect(!play.clientConnectionClosed, "the open stream is still answered")

        play.connected(flow: flow)
        play.upstream(flow: flow, Self.ok5)
        #expect(play.stream(open).bodyText == "hello")
        #expect(play.stream(open).ended)
        #expect(play.clientConnectionClosed)
        play.expect(
            Lines.opened(h2: "f1") + [
                "f1 cancel responseHead", "f1 release upstream", "cancel clientIdle", "close client after flush",
            ])
        #expect(play.closeReason == "http2-goaway")
    }

    @Test func clientCloseAbortsEveryOpenFlow() throws {
        var play = try HTTP2Playbook()
        let ids = try ["/a", "/b"].map { try play.request("GET", $0) }
        let flows = try ids.map { try play.flow(ofStream: $0) }
        play.connected(flow: flows[0])
        play.clientClosed()
        #expect(play.sessionIsClosed)
        #expect(play.upstreams[flows[0]]?.closed == true)
        for flow in flows {
            #expect(try play.eventKinds(of: flow).last == "flow.aborted")
        }
        // The session aborts its streams in the order of its dictionary of streams, which differs
        // from run to run: each flow's actions are stated whole, the flows in either order.
        play.expect(
            [
                Lines.idle, "f1 connect http://127.0.0.1:3000", "cancel clientIdle", "f2 connect http://127.0.0.1:3000",
                "f1 arm responseHead 60s",
            ], thenInAnyOrder: [["f2 close upstream"], ["f1 close upstream", "f1 cancel responseHead"]])
    }

    // MARK: The trace

    @Test func traceNamesHTTP2TheStreamAndTheClientSettings() throws {
        var limits = HTTP2Connection.Limits()
        limits.initialWindowSize = 70_000
        limits.maxConcurrentStreams = 7
        var play = try HTTP2Playbook(clientLimits: limits)
        let ids = try ["/one", "/two"].map { try play.request("GET", $0) }
        let flows = try ids.map { try play.flow(ofStream: $0) }
        for flow in flows.reversed() {
            play.connected(flow: flow)
            play.upstream(flow: flow, Self.ok5)
        }
        let events = try play.events()
        let settings = try #require(events.first { $0.kind == .http2Settings })
        #expect(settings.string("side") == "client")
        #expect(settings.object("settings")?["SETTINGS_INITIAL_WINDOW_SIZE"]?.intValue == 70_000)
        #expect(settings.object("settings")?["SETTINGS_MAX_CONCURRENT_STREAMS"]?.intValue == 7)
        #expect(settings.connection == ConnectionID(1))

        let received = events.filter { $0.kind == .requestReceived }
        #expect(received.map { $0.string("version") } == ["HTTP/2", "HTTP/2"])
        #expect(received.map { $0.int("stream") } == [1, 3])
        #expect(received.map { $0.string("path") } == ["/one", "/two"])
        for flow in flows {
            #expect(
                try play.eventKinds(of: flow) == [
                    "request.received", "request.forwarded", "response.received", "response.delivered",
                ])
            let delivered = try #require(try play.events(of: flow).last)
            #expect(delivered.int("status") == 200)
            #expect(delivered.body("body")?.length == 5)
        }
        play.expect(
            [
                Lines.idle, "f1 connect http://127.0.0.1:3000", "cancel clientIdle", "f2 connect http://127.0.0.1:3000",
                "f2 arm responseHead 60s", "f2 cancel responseHead", "f2 release upstream", "f1 arm responseHead 60s",
            ] + Lines.pooled(h2: "f1"))
    }

    // MARK: Flow control

    @Test func fullClientWindowPausesOnlyThatFlowsUpstreamUntilTheClientReads() throws {
        var clientLimits = HTTP2Connection.Limits()
        clientLimits.initialWindowSize = 4096
        var play = try HTTP2Playbook(clientLimits: clientLimits) { $0.maximumPendingUpstreamBytes = 32 * 1024 }
        play.clientConsumes = false
        let big = try play.request("GET", "/big")
        let small = try play.request("GET", "/small")
        let bigFlow = try play.flow(ofStream: big)
        let smallFlow = try play.flow(ofStream: small)
        play.connected(flow: bigFlow)
        play.connected(flow: smallFlow)

        let total = 200 * 1024
        let body = (0..<total).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 251) }
        let head = Array("HTTP/1.1 200 OK\r\nContent-Length: \(total)\r\n\r\n".utf8)
        var sent = 0
        var pausedAt: Int?
        play.upstream(flow: bigFlow, head)
        // The driver reads the upstream only while the session wants it.
        while sent < total, !play.upstreamReadsPaused(bigFlow) {
            let end = min(sent + 8192, total)
            play.upstream(flow: bigFlow, Array(body[sent..<end]))
            sent = end
        }
        pausedAt = sent
        #expect(play.upstreamReadsPaused(bigFlow), "the stream's queue passed the bound")
        #expect(pausedAt! < total)
        #expect(pausedAt! <= 4096 + 32 * 1024 + 8192, "reads stop soon after the bound")
        #expect(play.stream(big).body.count == 4096, "no more than the client's window went out")
        #expect(!play.upstreamReadsPaused(smallFlow), "the other flow is not paused")
        #expect(!play.clientReadsPaused)

        // The other stream is answered while the big one waits.
        play.upstream(flow: smallFlow, Self.ok5)
        #expect(play.stream(small).bodyText == "hello")
        play.credit(stream: small)

        // The client reads: credit what it got until the session wants upstream bytes again.
        var rounds = 0
        while play.upstreamReadsPaused(bigFlow), rounds < 1000 {
            play.credit(stream: big)
            rounds += 1
        }
        #expect(!play.upstreamReadsPaused(bigFlow))
        // Then the driver feeds the rest, and the client keeps reading.
        play.clientConsumes = true
        play.credit(stream: big)
        while sent < total {
            #expect(!play.upstreamReadsPaused(bigFlow))
            let end = min(sent + 8192, total)
            play.upstream(flow: bigFlow, Array(body[sent..<end]))
            sent = end
        }
        #expect(play.stream(big).body.count == total)
        #expect(play.stream(big).body == body)
        #expect(play.stream(big).ended)
        #expect(play.stream(big).closed == .noError)
        #expect(!play.upstreamReadsPaused(bigFlow))
        play.expect([
            Lines.idle, "f1 connect http://127.0.0.1:3000", "cancel clientIdle", "f2 connect http://127.0.0.1:3000",
            "f1 arm responseHead 60s", "f2 arm responseHead 60s", "f1 cancel responseHead", "f2 cancel responseHead",
            // Once the big stream alone is left, waiting for the window: the idle timer runs.
            "f2 release upstream", Lines.idle, "f1 release upstream", Lines.idle,
        ])
    }
}

/// `HTTP2PrefaceSniffer`: h2c with prior knowledge or HTTP/1.1, from the first bytes, however
/// they are split.
@Suite struct HTTP2PrefaceSnifferTests {
    /// Feeds `bytes` in two reads split at `split`; returns the verdict and the bytes the chosen
    /// session gets (held, then the rest of the read that decided, then what was not fed yet).
    static func sniff(_ bytes: [UInt8], split: Int) -> (verdict: String, delivered: [UInt8]) {
        var sniffer = HTTP2PrefaceSniffer()
        let reads = [Array(bytes[..<split]), Array(bytes[split...])]
        for (index, read) in reads.enumerated() {
            let verdict = read.withUnsafeBytes { sniffer.receive($0) }
            let rest = reads[(index + 1)...].flatMap { $0 }
            switch verdict {
            case .undecided: continue
            case .http1(let held): return ("http1", held + read + rest)
            case .http2(let held): return ("http2", held + read + rest)
            }
        }
        return ("undecided", sniffer.receiveEOF())
    }

    @Test func prefaceFollowedByFramesIsHTTP2AtEverySplit() {
        let input = HTTP2PrefaceSniffer.preface + [0, 0, 0, 4, 0, 0, 0, 0, 0] + Array("more".utf8)
        for split in 0...input.count {
            let (verdict, delivered) = Self.sniff(input, split: split)
            #expect(verdict == "http2", "split at \(split)")
            #expect(delivered == input, "split at \(split): every byte reaches the session once, in order")
        }
    }

    @Test func prefaceHeldBytesAreExactlyTheEarlierReads() {
        let input = HTTP2PrefaceSniffer.preface + Array("xyz".utf8)
        for split in 1..<HTTP2PrefaceSniffer.preface.count {
            var sniffer = HTTP2PrefaceSniffer()
            let first = Array(input[..<split])
            #expect(first.withUnsafeBytes { sniffer.receive($0) } == .undecided, "split at \(split)")
            let second = Array(input[split...])
            #expect(second.withUnsafeBytes { sniffer.receive($0) } == .http2(held: first), "split at \(split)")
        }
    }

    @Test func http1RequestIsHTTP1AtEverySplit() {
        let input = Array("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n".utf8)
        for split in 0...input.count {
            let (verdict, delivered) = Self.sniff(input, split: split)
            #expect(verdict == "http1", "split at \(split)")
            #expect(delivered == input, "split at \(split)")
        }
        // It differs at the first byte: nothing is ever held.
        var sniffer = HTTP2PrefaceSniffer()
        #expect(input.withUnsafeBytes { sniffer.receive($0) } == .http1(held: []))
    }

    @Test func priRequestThatDivergesLateIsHTTP1WithEveryHeldByte() {
        let input = Array("PRI * HTTP/1.1\r\nHost: a.test\r\n\r\n".utf8)
        // "PRI * HTTP/" is shared with the preface; the 12th byte differs.
        for split in 0...input.count {
            let (verdict, delivered) = Self.sniff(input, split: split)
            #expect(verdict == "http1", "split at \(split)")
            #expect(delivered == input, "split at \(split)")
        }
        for split in 1...11 {
            var sniffer = HTTP2PrefaceSniffer()
            let first = Array(input[..<split])
            #expect(first.withUnsafeBytes { sniffer.receive($0) } == .undecided)
            #expect(
                Array(input[split...]).withUnsafeBytes { sniffer.receive($0) } == .http1(held: first),
                "split at \(split)")
        }
    }

    @Test func byteByByteIsUndecidedUntilThePrefaceEnds() {
        var sniffer = HTTP2PrefaceSniffer()
        let preface = HTTP2PrefaceSniffer.preface
        for index in 0..<(preface.count - 1) {
            #expect([preface[index]].withUnsafeBytes { sniffer.receive($0) } == .undecided, "byte \(index)")
        }
        #expect([preface.last!].withUnsafeBytes { sniffer.receive($0) } == .http2(held: Array(preface.dropLast())))
    }

    @Test func eofMidPrefaceReturnsTheHeldBytes() {
        for count in 1..<HTTP2PrefaceSniffer.preface.count {
            var sniffer = HTTP2PrefaceSniffer()
            let partial = Array(HTTP2PrefaceSniffer.preface.prefix(count))
            #expect(partial.withUnsafeBytes { sniffer.receive($0) } == .undecided)
            #expect(sniffer.receiveEOF() == partial, "after \(count) bytes")
            #expect(sniffer.receiveEOF() == [], "held bytes are handed out once")
        }
    }

    @Test func emptyReadDecidesNothing() {
        var sniffer = HTTP2PrefaceSniffer()
        #expect([UInt8]().withUnsafeBytes { sniffer.receive($0) } == .undecided)
        #expect(Array("PRI".utf8).withUnsafeBytes { sniffer.receive($0) } == .undecided)
        #expect([UInt8]().withUnsafeBytes { sniffer.receive($0) } == .undecided)
        #expect(sniffer.receiveEOF() == Array("PRI".utf8))
    }
}
