import FaultlineCore
import FaultlineFlow
import FaultlineHTTP2
import FaultlineProxy
import FaultlineTrace
import Testing

/// `ClientSession.shutDown`: what each framing does when the server stops. HTTP/2 shuts down
/// gracefully (RFC 9113 §6.8): GOAWAY NO_ERROR naming the highest stream accepted, the open
/// streams finish, new ones are not processed, then the connection closes. HTTP/1.1 has no
/// graceful ending a server can start, so it is closed at once, as before.
@Suite struct ShutdownTests {
    static let ok5 = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"

    static func head(_ path: String) -> [HTTP2Header] {
        [
            HTTP2Header(":method", "GET"), HTTP2Header(":scheme", "http"), HTTP2Header(":authority", "app.test"),
            HTTP2Header(":path", path),
        ]
    }

    // MARK: HTTP/2

    @Test func goAwayNamesTheHighestStreamAcceptedAndTheOpenStreamFinishes() throws {
        var play = try HTTP2Playbook()
        let open = try play.request("GET", "/slow")
        let openFlow = try play.flow(ofStream: open)
        play.connected(flow: openFlow)
        // A later stream that is already answered: the highest accepted is it, not the open one.
        let done = try play.request("GET", "/done")
        let doneFlow = try play.flow(ofStream: done)
        play.connected(flow: doneFlow)
        play.upstream(flow: doneFlow, Self.ok5)
        #expect(play.stream(done).ended)
        // A stream the client opens while the GOAWAY is on its way to it.
        let late = try play.client.startRequest(headers: Self.head("/late"), endStream: true)
        let lateHeaders = play.takeClientOutput()

        play.shutDown()
        #expect(play.goAways.count == 1)
        let goAway = try #require(play.goAways.first)
        #expect(goAway.code == .noError, "a graceful shutdown (RFC 9113 §6.8)")
        #expect(goAway.lastStreamID == done, "the highest stream accepted")
        #expect(goAway.debug == "shutdown")
        #expect(!play.clientConnectionClosed, "stream \(open) is still open")
        #expect(!play.sessionIsClosed)

        // The late stream reaches the proxy after its GOAWAY: not processed (no flow, no
        // upstream); the client closed it as refused on reading last-stream-id.
        play.feed(lateHeaders)
        play.pump()
        #expect(try !play.events().contains { $0.kind == .requestReceived && $0.int("stream") == Int64(late) })
        #expect(play.flowsByConnectOrder == [openFlow, doneFlow])
        #expect(play.stream(late).closed == .refusedStream)
        #expect(play.stream(late).status == nil)
        #expect(!play.clientConnectionClosed)

        // The open stream drains: its response goes out whole, then the connection closes.
        play.upstream(flow: openFlow, Self.ok5)
        #expect(play.stream(open).status == 200)
        #expect(play.stream(open).bodyText == "hello")
        #expect(play.stream(open).ended)
        #expect(play.stream(open).reset == nil)
        #expect(play.clientConnectionClosed)
        play.expect(
            Lines.opened(h2: "f1") + [
                "f2 connect http://127.0.0.1:3000", "f2 arm responseHead 60s", "f2 cancel responseHead",
                "f2 release upstream", "f1 cancel responseHead", "f1 release upstream", "cancel clientIdle",
                "close client after flush",
            ])
        #expect(play.goAwaysBeforeClose == 1, "the GOAWAY went out before the close")
        #expect(play.goAways.count == 1, "one GOAWAY")
        #expect(play.closeReason == "shutdown")
        #expect(play.sessionIsClosed)
        #expect(try play.eventKinds(of: openFlow).last == "response.delivered")

        let traced = try #require(try play.events().first { $0.kind == .http2GoAway })
        #expect(traced.string("side") == "proxy")
        #expect(traced.string("code") == "NO_ERROR")
        #expect(traced.int("last_stream_id") == Int64(done))
        #expect(traced.string("debug") == "shutdown")
    }

    @Test func anIdleConnectionGetsGoAwayAndClosesAtOnce() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("GET", "/")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, Self.ok5)
        #expect(play.isArmed(.clientIdle))

        play.shutDown()
        #expect(play.goAways.map(\.code) == [.noError])
        #expect(play.goAways.first?.lastStreamID == id)
        #expect(play.clientConnectionClosed)
        #expect(play.goAwaysBeforeClose == 1)
        #expect(!play.isArmed(.clientIdle))
        #expect(play.closeReason == "shutdown")
        play.expect(
            Lines.opened(h2: "f1") + Lines.pooled(h2: "f1") + ["cancel clientIdle", "close client after flush"])
    }

    @Test func aConnectionWithoutStreamsNamesStreamZero() throws {
        var play = try HTTP2Playbook()
        play.shutDown()
        #expect(play.goAways.first?.lastStreamID == 0, "no stream was accepted")
        #expect(play.clientConnectionClosed)
        play.expect([Lines.idle, "cancel clientIdle", "close client after flush"])
    }

    @Test func aHeldStreamDrainsOnceItsHoldEnds() throws {
        let rules = ruleSet(
            #"{ rules: [{ name: "gate", match: { path: "/held" }, actions: [{ hold: { name: "g" } }] }] }"#)
        var play = try HTTP2Playbook(ruleSet: rules)
        let id = try play.request("GET", "/held")
        let flow = try play.flow(ofStream: id)
        #expect(play.holds[flow] != nil)
        play.shutDown()
        #expect(play.goAways.first?.lastStreamID == id)
        #expect(!play.clientConnectionClosed, "the held stream keeps the connection open")

        play.endHold(flow: flow, .release(nil))
        play.connected(flow: flow)
        play.upstream(flow: flow, Self.ok5)
        #expect(play.stream(id).bodyText == "hello")
        #expect(play.clientConnectionClosed)
        play.expect([
            Lines.idle, "cancel clientIdle", "fired test/gate", "f1 hold g (request)",
            "f1 connect http://127.0.0.1:3000", "f1 arm responseHead 60s", "f1 cancel responseHead",
            "f1 release upstream", "cancel clientIdle", "close client after flush",
        ])
    }

    /// The server cuts what its grace period did not see end: the flows still open end, and
    /// their reason says why.
    @Test func whatIsLeftAtTheDeadlineIsAbortedWhenTheServerCloses() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("GET", "/slow")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.shutDown()
        play.clientClosed()
        #expect(play.sessionIsClosed)
        #expect(play.upstreams[flow]?.closed == true)
        let aborted = try #require(try play.events(of: flow).last)
        #expect(aborted.kind == .flowAborted)
        #expect(aborted.string("reason") == "the connection closed while the proxy was shutting down")
        play.expect(Lines.opened(h2: "f1") + ["f1 close upstream", "f1 cancel responseHead"])
    }

    @Test func aConnectionAlreadyGoingAwayGetsNoSecondGoAway() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("GET", "/")
        let flow = try play.flow(ofStream: id)
        play.goAway()  // the client's
        play.shutDown()
        #expect(play.goAways.isEmpty, "the proxy sends none: the connection is already draining")
        #expect(!play.clientConnectionClosed)
        play.connected(flow: flow)
        play.upstream(flow: flow, Self.ok5)
        #expect(play.stream(id).bodyText == "hello")
        #expect(play.clientConnectionClosed)
        play.expect(
            Lines.opened(h2: "f1") + [
                "f1 cancel responseHead", "f1 release upstream", "cancel clientIdle", "close client after flush",
            ])
    }

    @Test func shuttingDownTwiceSendsOneGoAway() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("GET", "/")
        play.shutDown()
        play.shutDown()
        #expect(play.goAways.count == 1)
        #expect(play.goAways.first?.lastStreamID == id)
        play.expect([Lines.idle, "f1 connect http://127.0.0.1:3000", "cancel clientIdle"])
    }

    // MARK: HTTP/1.1

    @Test func anHTTP1ConnectionIsClosedAtOnceAndItsFlowAborted() throws {
        var play = Playbook()
        play.client("GET http://a.test/slow HTTP/1.1\r\nHost: a.test\r\n\r\n")
        play.connected()
        play.expect(Lines.opened("http://a.test:80"))
        play.shutDown()
        play.expect(["close upstream", "cancel responseHead", Lines.idle, "close client now"])
        #expect(play.session.closeReason == "shutdown")
        #expect(play.session.isClosed)
        let aborted = try #require(try play.events().last)
        #expect(aborted.kind == .flowAborted)
        #expect(aborted.string("reason") == "the proxy is shutting down")
        // The socket's close then reports the client gone: nothing more happens.
        play.clientClosed()
        play.expectNothing()
    }

    @Test func anIdleHTTP1ConnectionIsClosedAtOnce() throws {
        var play = Playbook()
        play.shutDown()
        play.expect([Lines.idle, "close client now"])
        #expect(play.session.closeReason == "shutdown")
    }
}
