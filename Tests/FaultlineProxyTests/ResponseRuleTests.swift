import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineProxy
import FaultlineRules
import FaultlineTrace
import Testing

/// Response-phase rules through the session: rewrites, cookies, holds, replacements and faults.
@Suite struct ResponseRuleTests {
    static let get = "GET http://api.test/v1/me HTTP/1.1\r\nHost: api.test\r\n\r\n"
    static let ok =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nSet-Cookie: session=abc; Path=/\r\nContent-Length: 28\r\n\r\n{\"user\":\"ann\",\"plan\":\"free\"}"

    private func play(_ rule: String, sourceLocation: SourceLocation = #_sourceLocation) -> Playbook {
        var play = Playbook(ruleSet: ruleSet("{ rules: [\(rule)] }"), sourceLocation: sourceLocation)
        play.client(Self.get)
        play.connected()
        _ = play.takeUpstreamText()
        return play
    }

    @Test func rewriteChangesStatusHeadersAndJSON() {
        var play = play(
            #"""
            { name: "r", phase: "response",
              actions: [{ rewrite: { status: 500, headers: { set: { "X-Env": "test" }, remove: ["Set-Cookie"] },
                                     jsonSet: { "/plan": "pro" } } }] }
            """#)
        play.upstream(String(Self.ok.dropLast(10)))
        #expect(play.clientText.isEmpty, "a JSON edit waits for the whole body")
        play.upstream(String(Self.ok.suffix(10)))
        let answer = ParsedMessage(play.takeClientText())
        #expect(answer.startLine == "HTTP/1.1 500 Internal Server Error")
        #expect(answer.values("X-Env") == ["test"])
        #expect(answer.values("Set-Cookie").isEmpty)
        #expect(answer.body == #"{"user":"ann","plan":"pro"}"#)
        #expect(answer.values("Content-Length") == ["\(answer.body.utf8.count)"])
        play.expect(
            Lines.opened("http://api.test:80") + [
                "cancel responseHead", "fired test/r", "release upstream", Lines.idle,
            ])
    }

    @Test func setCookieReplaysAnOldSessionsCookie() {
        let rules = ruleSet(
            #"""
            { rules: [{ name: "inject", phase: "response", match: { path: "/later" },
                        actions: [{ setCookie: { replay: "session" } }, { setCookie: "theme=dark" }] }] }
            """#)
        var play = Playbook(ruleSet: rules)
        play.client(Self.get)
        play.connected()
        play.upstream(Self.ok)  // sets session=abc
        _ = play.takeClientText()
        play.client("GET http://api.test/later HTTP/1.1\r\nHost: api.test\r\n\r\n")
        play.connected(reused: true)
        play.upstream("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        #expect(ParsedMessage(play.takeClientText()).values("Set-Cookie") == ["session=abc; Path=/", "theme=dark"])
        play.expect(
            Lines.opened("http://api.test:80") + Lines.pooled + [
                "cancel clientIdle", "connect http://api.test:80", "arm responseHead 60s", "cancel responseHead",
                "fired test/inject", "release upstream", Lines.idle,
            ])
    }

    @Test func stripCookieRemovesOnlyTheNamedCookie() {
        var play = play(#"{ name: "s", actions: [{ stripCookie: "session" }] }"#)
        play.upstream(
            "HTTP/1.1 200 OK\r\nSet-Cookie: session=abc\r\nSet-Cookie: theme=dark\r\nContent-Length: 0\r\n\r\n")
        #expect(ParsedMessage(play.takeClientText()).values("Set-Cookie") == ["theme=dark"])
        play.expect(
            Lines.opened("http://api.test:80") + [
                "cancel responseHead", "fired test/s", "release upstream", Lines.idle,
            ])
    }

    @Test func heldResponseReachesTheClientOnlyAfterRelease() throws {
        var play = play(#"{ name: "h", phase: "response", actions: [{ hold: { name: "late" } }] }"#)
        play.upstream(Self.ok)
        play.expect(
            Lines.opened("http://api.test:80") + ["cancel responseHead", "fired test/h", "hold late (response)"])
        #expect(play.clientText.isEmpty)
        play.endHold(.release(nil))
        let answer = ParsedMessage(play.takeClientText())
        #expect(answer.startLine == "HTTP/1.1 200 OK")
        #expect(answer.body == #"{"user":"ann","plan":"free"}"#)
        play.expect(["release upstream", Lines.idle])
    }

    @Test func heldResponseStaysHeldWhileItsBodyArrives() {
        var play = play(#"{ name: "h", phase: "response", actions: [{ hold: { name: "late" } }] }"#)
        play.upstream("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
        #expect(play.clientText.isEmpty)
        play.upstream("0\r\n\r\n")
        play.endHold(.release(nil))
        #expect(play.takeClientText().hasSuffix("5\r\nhello\r\n0\r\n\r\n"))
        play.expect(
            Lines.opened("http://api.test:80") + [
                "cancel responseHead", "fired test/h", "hold late (response)", "release upstream", Lines.idle,
            ])
    }

    @Test func releasingAHeldResponseWithAReplacementAnswersIt() {
        var play = play(#"{ name: "h", phase: "response", actions: [{ hold: { name: "late" } }] }"#)
        play.upstream(Self.ok)
        play.endHold(.release(SyntheticResponse(status: 401)))
        #expect(ParsedMessage(play.takeClientText()).startLine == "HTTP/1.1 401 Unauthorized")
        play.expect(
            Lines.opened("http://api.test:80") + [
                "cancel responseHead", "fired test/h", "hold late (response)", "release upstream", Lines.idle,
            ])
    }

    @Test func truncateSendsFewerBytesThanTheFramingPromises() throws {
        var play = play(#"{ name: "t", actions: [{ fault: { kind: "truncate", bytes: 5 } }] }"#)
        play.upstream(Self.ok)
        let text = play.takeClientText()
        #expect(text.hasSuffix("\r\n\r\n{\"use"))
        #expect(ParsedMessage(text).values("Content-Length") == ["28"])
        play.expect(
            Lines.opened("http://api.test:80") + [
                "cancel responseHead", "fired test/t", "close upstream", "cancel clientIdle",
                "close client after flush",
            ])
    }

    @Test func closeMidBodyResetsAfterItsBytes() {
        var play = play(#"{ name: "c", actions: [{ fault: { kind: "close-mid-body", bytes: 3 } }] }"#)
        play.upstream(Self.ok)
        #expect(play.takeClientText().hasSuffix("\r\n\r\n{\"u"))
        play.expect(
            Lines.opened("http://api.test:80") + [
                "cancel responseHead", "fired test/c", "close upstream", "cancel clientIdle", "reset client",
            ])
    }

    @Test func malformedChunkBreaksChunkedFraming() {
        var play = play(#"{ name: "m", actions: [{ fault: "malformed-chunk" }] }"#)
        play.upstream(Self.ok)
        let text = play.takeClientText()
        #expect(ParsedMessage(text).values("Transfer-Encoding") == ["chunked"])
        #expect(text.hasSuffix("zz\r\nnot a chunk\r\n"))
        play.expect(
            Lines.opened("http://api.test:80") + [
                "cancel responseHead", "fired test/m", "close upstream", "cancel clientIdle",
                "close client after flush",
            ])
    }

    @Test func stallSendsNothingUntilItsDeadline() {
        var play = play(#"{ name: "s", phase: "response", actions: [{ fault: { kind: "stall", seconds: 3 } }] }"#)
        play.upstream(Self.ok)
        play.expect(Lines.opened("http://api.test:80") + ["cancel responseHead", "fired test/s", "arm stall 3s"])
        #expect(play.clientText.isEmpty)
        play.fire(.stall)
        play.expect(["close upstream", "cancel clientIdle", "close client now"])
    }

    @Test func delayedResponseWaitsForItsTimer() {
        var play = play(#"{ name: "d", phase: "response", actions: [{ delay: 0.5 }] }"#)
        play.upstream(Self.ok)
        #expect(play.clientText.isEmpty)
        play.fire(.flowDelay)
        #expect(ParsedMessage(play.takeClientText()).startLine == "HTTP/1.1 200 OK")
        play.expect(
            Lines.opened("http://api.test:80") + [
                "cancel responseHead", "fired test/d", "arm delay 0.5s", "release upstream", Lines.idle,
            ])
    }

    @Test func loginResponseStartsALineageWithFingerprintsOnly() throws {
        let profile = #"""
            { login: { method: "POST", path: "/oauth/token" },
              credentials: { request: [{ header: "Authorization", scheme: "Bearer", kind: "access" }],
                             response: [{ json: "/access_token", kind: "access" }] } }
            """#
        var play = Playbook(ruleSet: ruleSet("{ rules: [] }", profile: profile))
        play.client("POST http://api.test/oauth/token HTTP/1.1\r\nHost: api.test\r\nContent-Length: 0\r\n\r\n")
        play.connected()
        let body = #"{"access_token":"tok-123-secret"}"#
        play.upstream("HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        play.client(
            "GET http://api.test/v1/me HTTP/1.1\r\nHost: api.test\r\nAuthorization: Bearer tok-123-secret\r\n\r\n")
        let events = try play.events()
        let login = try #require(events.first { $0.kind.rawValue == "lineage.login" })
        #expect(login.string("lineage") == "L1")
        let business = try #require(events.last { $0.kind == .requestReceived })
        #expect(business.string("role") == "business")
        #expect(business.string("lineage") == "L1")
        #expect(login.strings("issued") == business.strings("credentials"))
        #expect(!play.trace.memoryContents().contains("tok-123-secret"))
        play.expect(
            Lines.opened("http://api.test:80") + Lines.pooled + ["cancel clientIdle", "connect http://api.test:80"])
    }
}
