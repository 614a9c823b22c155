import FaultlineCore
import FaultlineFlow
import FaultlineHTTP2
import FaultlineProxy
import FaultlineTrace
import Testing

/// HTTP/2 clients that stall the connection (HTTP2ProxySession+Stalls.swift): a FIN while a
/// response waits for the client's window, a window that stays closed for the idle timeout, a
/// header block left without END_HEADERS.
@Suite struct HTTP2StallTests {
    /// A response head announcing a 200,000-octet body, and the first `count` octets of it.
    static func bigResponse(first count: Int) -> [UInt8] {
        Array("HTTP/1.1 200 OK\r\nContent-Length: 200000\r\n\r\n".utf8) + Array(repeating: 0x61, count: count)
    }

    static func limits(window: UInt32) -> HTTP2Connection.Limits {
        var limits = HTTP2Connection.Limits()
        limits.initialWindowSize = window
        return limits
    }

    static let opened = Lines.opened(h2: "f1")
    /// The waiting stream's flow ends and its upstream closes; then the connection closes.
    static let abandonedAndClosed = [
        "f1 cancel responseHead", Lines.idle, "f1 close upstream", "cancel clientIdle", "close client after flush",
    ]

    // MARK: FIN while a response waits for the window

    /// Window 0: the body waits from its first octet; the client's FIN means no WINDOW_UPDATE
    /// can come, so the flow ends (`client-gone`), the stream is reset (CANCEL) and the
    /// connection closes at once.
    @Test func finWithTheResponseWaitingForAWindowOfZeroEndsTheStreamAndCloses() throws {
        var play = try HTTP2Playbook(clientLimits: Self.limits(window: 0))
        play.clientConsumes = false
        let id = try play.request("GET", "/big")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, Self.bigResponse(first: 1000))
        #expect(play.stream(id).status == 200)
        #expect(play.stream(id).body.isEmpty)
        #expect(!play.clientConnectionClosed)

        play.clientEOF()
        #expect(play.stream(id).reset == .cancel)
        #expect(play.clientConnectionClosed)
        #expect(play.sessionIsClosed)
        #expect(play.closeReason == "client-closed")
        #expect(play.upstreams[flow]?.closed == true)
        let aborted = try #require(try play.events(of: flow).first { $0.kind.rawValue == "flow.aborted" })
        #expect(aborted.string("reason") == "client-gone")
        #expect(try play.eventKinds(of: flow).last == "flow.aborted")
        play.expect(Self.opened + Self.abandonedAndClosed)
    }

    /// The default window: 65,535 octets went out, the rest waits; the FIN ends it the same way.
    @Test func finWithTheDefaultWindowFullEndsTheStreamAndCloses() throws {
        var play = try HTTP2Playbook(clientLimits: Self.limits(window: 65_535))
        play.clientConsumes = false
        let id = try play.request("GET", "/big")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, Self.bigResponse(first: 70_000))
        #expect(play.stream(id).body.count == 65_535)
        play.clientEOF()
        #expect(play.stream(id).reset == .cancel)
        #expect(play.stream(id).body.count == 65_535)
        #expect(play.clientConnectionClosed)
        let aborted = try #require(try play.events(of: flow).first { $0.kind.rawValue == "flow.aborted" })
        #expect(aborted.string("reason") == "client-gone")
        play.expect(Self.opened + Self.abandonedAndClosed)
    }

    /// A response the flow handed over whole (`response.delivered` is traced when the bytes
    /// leave the flow) but that waits for the window: after the FIN its stream is reset all the
    /// same and the connection closes; the flow had ended, so no `flow.aborted`.
    @Test func finWithAWholeResponseStillWaitingResetsTheStreamAndCloses() throws {
        var play = try HTTP2Playbook(clientLimits: Self.limits(window: 0))
        play.clientConsumes = false
        let id = try play.request("GET", "/small")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, HTTP2SessionTests.ok5)
        #expect(try play.eventKinds(of: flow).last == "response.delivered")
        #expect(play.stream(id).body.isEmpty)
        play.clientEOF()
        #expect(play.stream(id).reset == .cancel)
        #expect(play.clientConnectionClosed)
        #expect(try !play.eventKinds(of: flow).contains("flow.aborted"))
        play.expect(
            Self.opened + [
                "f1 cancel responseHead", "f1 release upstream", Lines.idle, "cancel clientIdle",
                "close client after flush",
            ])
    }

    /// A FIN before the body arrives: nothing waits yet, so nothing ends; once the body comes
    /// and cannot go, the stream ends and the connection closes.
    @Test func finBeforeTheBodyEndsTheStreamWhenTheBodyComesAndCannotGo() throws {
        var play = try HTTP2Playbook(clientLimits: Self.limits(window: 0))
        play.clientConsumes = false
        let id = try play.request("GET", "/big")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.clientEOF()
        #expect(!play.clientConnectionClosed, "the response may still fit (an empty body needs no window)")
        play.upstream(flow: flow, Self.bigResponse(first: 10))
        #expect(play.stream(id).reset == .cancel)
        #expect(play.clientConnectionClosed)
        play.expect(
            Self.opened + [
                "f1 cancel responseHead", "f1 close upstream", "cancel clientIdle", "close client after flush",
            ])
    }

    /// Only the streams that wait for the window end: another stream whose response fits is
    /// still answered after the FIN, and the connection closes once it is.
    @Test func finEndsOnlyTheWaitingStreamsAndAnswersTheOthers() throws {
        var play = try HTTP2Playbook(clientLimits: Self.limits(window: 100))
        play.clientConsumes = false
        let stuck = try play.request("GET", "/big")
        let fits = try play.request("GET", "/small")
        let stuckFlow = try play.flow(ofStream: stuck)
        let fitsFlow = try play.flow(ofStream: fits)
        play.connected(flow: stuckFlow)
        play.connected(flow: fitsFlow)
        play.upstream(flow: stuckFlow, Self.bigResponse(first: 1000))
        play.clientEOF()
        #expect(play.stream(stuck).reset == .cancel)
        #expect(play.stream(fits).reset == nil)
        #expect(!play.clientConnectionClosed, "stream \(fits) can still be answered")

        play.upstream(flow: fitsFlow, HTTP2SessionTests.ok5)
        #expect(play.stream(fits).bodyText == "hello")
        #expect(play.stream(fits).ended)
        #expect(play.clientConnectionClosed)
        #expect(try play.eventKinds(of: fitsFlow).last == "response.delivered")
        let aborted = try #require(try play.events(of: stuckFlow).first { $0.kind.rawValue == "flow.aborted" })
        #expect(aborted.string("reason") == "client-gone")
        play.expect([
            Lines.idle, "f1 connect http://127.0.0.1:3000", "cancel clientIdle", "f2 connect http://127.0.0.1:3000",
            "f1 arm responseHead 60s", "f2 arm responseHead 60s", "f1 cancel responseHead", "f1 close upstream",
            "f2 cancel responseHead", "f2 release upstream", "cancel clientIdle", "close client after flush",
        ])
    }

    // MARK: The idle timeout over output waiting for the window

    /// No FIN, window 0: the stream waits from its first body octet and nothing ever leaves, so
    /// the first idle timeout ends it (`idle-timeout`, RST_STREAM CANCEL), GOAWAY NO_ERROR goes
    /// out and the connection closes.
    @Test func outputWaitingForTheWindowIsCutByTheIdleTimeout() throws {
        var play = try HTTP2Playbook(clientLimits: Self.limits(window: 0))
        play.clientConsumes = false
        let id = try play.request("GET", "/big")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, Self.bigResponse(first: 1000))
        #expect(play.isArmed(.clientIdle), "the stream only waits for the client")
        play.fire(.clientIdle)
        #expect(play.stream(id).reset == .cancel)
        #expect(play.goAways.map(\.code) == [.noError])
        #expect(play.goAways.first?.debug == "idle")
        #expect(play.goAways.first?.lastStreamID == id)
        #expect(play.clientConnectionClosed)
        #expect(play.closeReason == "idle-timeout")
        let aborted = try #require(try play.events(of: flow).first { $0.kind.rawValue == "flow.aborted" })
        #expect(aborted.string("reason") == "idle-timeout")
        let goAway = try #require(try play.events().first { $0.kind == .http2GoAway })
        #expect(goAway.string("debug") == "idle")
        play.expect(Self.opened + Self.abandonedAndClosed)
    }

    /// A slow reader is not an idle one: DATA that left while the timer ran earns it one more
    /// run (the timer is checked when it fires, not moved at every WINDOW_UPDATE); a run with
    /// no progress cuts the connection. Bytes from the upstream that only join the queue are no
    /// progress.
    @Test func dataLeavingWhileTheTimerRunsEarnsOneMoreRun() throws {
        var play = try HTTP2Playbook(clientLimits: Self.limits(window: 65_535))
        play.clientConsumes = false
        let id = try play.request("GET", "/big")
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, Self.bigResponse(first: 150_000))
        #expect(play.stream(id).body.count == 65_535)
        #expect(play.isArmed(.clientIdle), "the stream only waits for the client")
        play.expect(Self.opened + ["f1 cancel responseHead", Lines.idle])

        play.credit(stream: id)
        #expect(play.stream(id).body.count == 2 * 65_535, "a second window, and the rest still waits")
        play.upstream(flow: flow, Array(repeating: 0x62, count: 1000))
        play.expectNothing()
        play.fire(.clientIdle)
        #expect(!play.clientConnectionClosed, "DATA left since the timer was armed")
        #expect(play.isArmed(.clientIdle))
        play.expect([Lines.idle])

        play.upstream(flow: flow, Array(repeating: 0x63, count: 1000))
        play.fire(.clientIdle)
        #expect(play.stream(id).reset == .cancel)
        #expect(play.clientConnectionClosed)
        #expect(play.closeReason == "idle-timeout")
        let aborted = try #require(try play.events(of: flow).first { $0.kind.rawValue == "flow.aborted" })
        #expect(aborted.string("reason") == "idle-timeout")
        play.expect(["f1 close upstream", "cancel clientIdle", "close client after flush"])
    }

    /// A stream that is still being answered (its upstream has not sent its head) is activity:
    /// no idle timer beside it, however long another stream waits for the window.
    @Test func aStreamInProgressKeepsTheIdleTimerOff() throws {
        var play = try HTTP2Playbook(clientLimits: Self.limits(window: 0))
        play.clientConsumes = false
        let waiting = try play.request("GET", "/big")
        _ = try play.request("GET", "/slow")
        let flow = try play.flow(ofStream: waiting)
        play.connected(flow: flow)
        play.upstream(flow: flow, Self.bigResponse(first: 10))
        #expect(!play.isArmed(.clientIdle))
        play.expect([
            Lines.idle, "f1 connect http://127.0.0.1:3000", "cancel clientIdle", "f2 connect http://127.0.0.1:3000",
            "f1 arm responseHead 60s", "f1 cancel responseHead",
        ])
    }

    // MARK: A header block left open

    /// Opens a stream on the client connection whose HEADERS the session receives split in two:
    /// a HEADERS without END_HEADERS carrying the first octets of the block, and (unless
    /// `finish` is false) a CONTINUATION with END_HEADERS carrying the rest, fed separately.
    /// Between the two, `between` runs. Returns the stream ID.
    static func splitRequest(
        _ play: inout HTTP2Playbook, finish: Bool = true, between: (inout HTTP2Playbook) -> Void
    ) throws -> Int32 {
        let id = try play.client.startRequest(
            headers: [
                HTTP2Header(":method", "GET"), HTTP2Header(":scheme", "http"), HTTP2Header(":authority", "app.test"),
                HTTP2Header(":path", "/split"),
            ], endStream: true)
        let output = play.takeClientOutput()
        var before: [UInt8] = []
        var offset = 0
        var continuation: [UInt8] = []
        while offset + 9 <= output.count {
            let length = Int(output[offset]) << 16 | Int(output[offset + 1]) << 8 | Int(output[offset + 2])
            let end = offset + 9 + length
            if output[offset + 3] == 0x1 {
                var head = Array(output[offset..<(offset + 9)])
                let block = Array(output[(offset + 9)..<end])
                let cut = min(3, block.count)
                head[0] = 0
                head[1] = 0
                head[2] = UInt8(cut)
                head[4] &= ~0x4  // no END_HEADERS
                before += head + block[..<cut]
                let rest = block[cut...]
                continuation =
                    [
                        UInt8(rest.count >> 16), UInt8(truncatingIfNeeded: rest.count >> 8),
                        UInt8(truncatingIfNeeded: rest.count), 0x9, 0x4,
                    ]
                    + Array(output[(offset + 5)..<(offset + 9)]) + rest
            } else {
                before += output[offset..<end]
            }
            offset = end
        }
        #expect(!continuation.isEmpty, "the HEADERS frame was not found")
        play.feed(before)
        between(&play)
        if finish {
            play.feed(continuation)
            play.pump()
        }
        return id
    }

    @Test func aHeaderBlockLeftOpenEndsTheConnectionAfterTheHeaderTimeout() throws {
        var play = try HTTP2Playbook { $0.headerTimeout = .seconds(3) }
        _ = try Self.splitRequest(&play, finish: false) { play in
            #expect(play.isArmed(.requestHead))
        }
        play.fire(.requestHead)
        #expect(play.goAways.map(\.code) == [.protocolError])
        #expect(play.goAways.first?.debug == "header-timeout")
        #expect(play.goAways.first?.lastStreamID == 0, "no stream became a flow")
        #expect(play.clientConnectionClosed)
        #expect(play.sessionIsClosed)
        #expect(play.closeReason == "http2-PROTOCOL_ERROR")
        let error = try #require(try play.events().first { $0.kind == .protocolError })
        #expect(error.string("code") == "header-timeout")
        #expect(error.string("side") == "client")
        #expect(error.string("message")?.contains("3 s") == true)
        #expect(try !play.events().contains { $0.kind == .requestReceived })
        play.expect([Lines.idle, "arm requestHead 3s", "cancel clientIdle", "close client after flush"])
    }

    /// The block finished in time: the clock stops, and the request is served as usual; a
    /// CONTINUATION without END_HEADERS would not have stopped it.
    @Test func aHeaderBlockFinishedInTimeStopsTheClock() throws {
        var play = try HTTP2Playbook()
        let id = try Self.splitRequest(&play) { play in
            #expect(play.isArmed(.requestHead))
        }
        #expect(!play.isArmed(.requestHead))
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, HTTP2SessionTests.ok5)
        #expect(play.stream(id).bodyText == "hello")
        #expect(!play.clientConnectionClosed)
        play.expect(
            [
                Lines.idle, "arm requestHead 10s", "f1 connect http://127.0.0.1:3000", "cancel clientIdle",
                "cancel requestHead", "f1 arm responseHead 60s",
            ]
                + Lines.pooled(h2: "f1"))
    }

    /// A HEADERS frame (END_HEADERS set) whose payload comes one octet at a time: nghttp2 hands
    /// on nothing until the frame is whole, and the header clock runs from the frame's header.
    /// Left unfinished, it ends the connection as an unfinished CONTINUATION does.
    @Test func aTrickledHeadersFrameEndsTheConnectionAfterTheHeaderTimeout() throws {
        var play = try HTTP2Playbook { $0.headerTimeout = .seconds(3) }
        _ = try play.client.startRequest(
            headers: [
                HTTP2Header(":method", "GET"), HTTP2Header(":scheme", "http"), HTTP2Header(":authority", "app.test"),
                HTTP2Header(":path", "/trickle"),
            ], endStream: true)
        let frame = play.takeClientOutput()
        #expect(frame.count > 10 && frame[3] == 0x1, "one HEADERS frame")
        for octet in frame.dropLast() { play.feed([octet]) }
        #expect(play.isArmed(.requestHead))
        play.fire(.requestHead)
        #expect(play.goAways.map(\.code) == [.protocolError])
        #expect(play.goAways.first?.debug == "header-timeout")
        #expect(play.clientConnectionClosed)
        let error = try #require(try play.events().first { $0.kind == .protocolError })
        #expect(error.string("code") == "header-timeout")
        #expect(try !play.events().contains { $0.kind == .requestReceived })
        play.expect([Lines.idle, "arm requestHead 3s", "cancel clientIdle", "close client after flush"])
    }

    /// The same frame finished in time is served, and its clock stopped.
    @Test func aTrickledHeadersFrameFinishedInTimeStopsTheClock() throws {
        var play = try HTTP2Playbook()
        let id = try play.client.startRequest(
            headers: [
                HTTP2Header(":method", "GET"), HTTP2Header(":scheme", "http"), HTTP2Header(":authority", "app.test"),
                HTTP2Header(":path", "/trickle"),
            ], endStream: true)
        for octet in play.takeClientOutput() { play.feed([octet]) }
        play.pump()
        #expect(!play.isArmed(.requestHead))
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, HTTP2SessionTests.ok5)
        #expect(play.stream(id).bodyText == "hello")
        play.expect(
            [
                Lines.idle, "arm requestHead 10s", "f1 connect http://127.0.0.1:3000", "cancel clientIdle",
                "cancel requestHead", "f1 arm responseHead 60s",
            ]
                + Lines.pooled(h2: "f1"))
    }

    @Test func aWholeHeadersFrameArmsNoHeaderClock() throws {
        var play = try HTTP2Playbook()
        let id = try play.request("GET", "/")
        #expect(!play.isArmed(.requestHead))
        let flow = try play.flow(ofStream: id)
        play.connected(flow: flow)
        play.upstream(flow: flow, HTTP2SessionTests.ok5)
        play.expect(Self.opened + Lines.pooled(h2: "f1"))
    }
}
