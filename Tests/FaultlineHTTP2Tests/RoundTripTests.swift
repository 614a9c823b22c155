import CNghttp2
import FaultlineCore
import Testing

@testable import FaultlineHTTP2

@Suite struct RoundTripTests {
    @Test func getWithoutBody() throws {
        let pair = try ConnectionPair()
        let head = request("GET", "/hello", [("accept", "text/plain")])
        let id = try pair.client.startRequest(headers: head, endStream: true)
        #expect(id == 1)
        pair.pump()
        #expect(pair.serverEvents.about(id) == [.headers(stream: id, headers: head, endStream: true)])
        // Each side saw the other's SETTINGS (RFC 9113 §3.4), ours as Limits say.
        #expect(
            pair.clientEvents.first
                == .settings([
                    HTTP2Setting(identifier: HTTP2Setting.maxConcurrentStreams, value: 100),
                    HTTP2Setting(identifier: HTTP2Setting.initialWindowSize, value: 1 << 20),
                    HTTP2Setting(identifier: HTTP2Setting.maxHeaderListSize, value: 64 * 1024),
                    HTTP2Setting(identifier: HTTP2Setting.enablePush, value: 0),
                    // A server takes extended CONNECT (RFC 8441 §3).
                    HTTP2Setting(identifier: HTTP2Setting.enableConnectProtocol, value: 1),
                ]))

        let response = fields([(":status", "200"), ("content-type", "text/plain")])
        pair.server.sendResponseHead(stream: id, headers: response, endStream: false)
        pair.server.sendData(stream: id, bytes("hello")[...], endStream: true)
        pair.pump()
        #expect(
            pair.clientEvents.about(id) == [
                .headers(stream: id, headers: response, endStream: false),
                .data(stream: id, bytes: bytes("hello"), endStream: true),
                .streamClosed(stream: id, code: .noError),
            ])
        #expect(pair.serverEvents.about(id).last == .streamClosed(stream: id, code: .noError))
        #expect(!pair.client.wantsWrite && !pair.server.wantsWrite)
        #expect(!pair.client.isFinished && !pair.server.isFinished)
    }

    @Test func postWithBodyAndTrailersBothWays() throws {
        let pair = try ConnectionPair()
        let head = request("POST", "/upload", [("content-type", "application/json")])
        let id = try pair.client.startRequest(headers: head, endStream: false)
        pair.client.sendData(stream: id, bytes("{\"a\":")[...], endStream: false)
        pair.pump()
        pair.client.sendData(stream: id, bytes("1}")[...], endStream: false)
        pair.client.sendTrailers(stream: id, headers: fields([("x-checksum", "abc")]))
        pair.pump()
        #expect(
            pair.serverEvents.merged(id) == [
                .headers(stream: id, headers: head, endStream: false),
                .data(stream: id, bytes: bytes("{\"a\":1}"), endStream: false),
                .trailers(stream: id, headers: fields([("x-checksum", "abc")])),
            ])

        let response = fields([(":status", "201")])
        pair.server.sendResponseHead(stream: id, headers: response, endStream: false)
        pair.server.sendData(stream: id, bytes("created")[...], endStream: false)
        pair.server.sendTrailers(stream: id, headers: fields([("grpc-status", "0")]))
        pair.pump()
        #expect(
            pair.clientEvents.merged(id) == [
                .headers(stream: id, headers: response, endStream: false),
                .data(stream: id, bytes: bytes("created"), endStream: false),
                .trailers(stream: id, headers: fields([("grpc-status", "0")])),
                .streamClosed(stream: id, code: .noError),
            ])
        #expect(pair.serverEvents.about(id).last == .streamClosed(stream: id, code: .noError))
        // END_STREAM is on the trailers' HEADERS, never on a DATA frame (RFC 9113 §8.1).
        for frames in [pair.clientFrames, pair.serverFrames] {
            #expect(frames.ofType(Frame.data).allSatisfy { $0.flags & Frame.endStream == 0 })
            #expect(frames.ofType(Frame.headers).filter { $0.flags & Frame.endStream != 0 }.count == 1)
        }
    }

    @Test func trailersRightAfterTheHead() throws {
        let pair = try ConnectionPair()
        let id = try pair.client.startRequest(headers: request("GET", "/"), endStream: true)
        pair.pump()
        pair.server.sendResponseHead(stream: id, headers: fields([(":status", "200")]), endStream: false)
        pair.server.sendTrailers(stream: id, headers: fields([("x-done", "yes")]))
        pair.pump()
        #expect(
            pair.clientEvents.about(id) == [
                .headers(stream: id, headers: fields([(":status", "200")]), endStream: false),
                .trailers(stream: id, headers: fields([("x-done", "yes")])),
                .streamClosed(stream: id, code: .noError),
            ])
    }

    @Test func informationalHeadsComeBeforeTheFinalHead() throws {
        let pair = try ConnectionPair()
        let id = try pair.client.startRequest(
            headers: request("POST", "/", [("expect", "100-continue")]), endStream: false)
        pair.pump()
        pair.server.sendResponseHead(stream: id, headers: fields([(":status", "100")]), endStream: true)
        pair.server.sendResponseHead(
            stream: id, headers: fields([(":status", "103"), ("link", "</a>")]), endStream: false)
        pair.pump()
        pair.client.sendData(stream: id, bytes("body")[...], endStream: true)
        pair.server.sendResponseHead(stream: id, headers: fields([(":status", "204")]), endStream: true)
        pair.pump()
        #expect(
            pair.clientEvents.about(id) == [
                .headers(stream: id, headers: fields([(":status", "100")]), endStream: false),
                .headers(stream: id, headers: fields([(":status", "103"), ("link", "</a>")]), endStream: false),
                .headers(stream: id, headers: fields([(":status", "204")]), endStream: true),
                .streamClosed(stream: id, code: .noError),
            ])
    }

    @Test func threeConcurrentStreamsInterleaved() throws {
        let pair = try ConnectionPair()
        let ids = try (0..<3).map { index in
            try pair.client.startRequest(headers: request("POST", "/\(index)"), endStream: false)
        }
        #expect(ids == [1, 3, 5])
        for round in 0..<4 {
            for (index, id) in ids.enumerated().reversed() {
                pair.client.sendData(stream: id, bytes("c\(index)r\(round);")[...], endStream: round == 3)
            }
            pair.pump()
        }
        for (index, id) in ids.enumerated() {
            #expect(pair.serverEvents.body(id) == bytes((0..<4).map { "c\(index)r\($0);" }.joined()))
            #expect(
                pair.serverEvents.about(id).last(where: { if case .data = $0 { true } else { false } })
                    == .data(stream: id, bytes: bytes("c\(index)r3;"), endStream: true))
        }
        // The server answers in the other order, body pieces interleaved across streams.
        for id in ids.reversed() {
            pair.server.sendResponseHead(stream: id, headers: fields([(":status", "200")]), endStream: false)
        }
        for round in 0..<3 {
            for id in ids { pair.server.sendData(stream: id, bytes("s\(id)r\(round);")[...], endStream: round == 2) }
            pair.pump()
        }
        for id in ids {
            #expect(pair.clientEvents.body(id) == bytes((0..<3).map { "s\(id)r\($0);" }.joined()))
            #expect(pair.clientEvents.about(id).last == .streamClosed(stream: id, code: .noError))
            #expect(pair.serverEvents.about(id).last == .streamClosed(stream: id, code: .noError))
        }
        let heads = pair.clientEvents.compactMap { event -> Int32? in
            if case .headers(let id, _, _) = event { id } else { nil }
        }
        #expect(heads == [5, 3, 1])
    }

    @Test func dataQueuedBeforeTheHeadFollowsIt() throws {
        let pair = try ConnectionPair()
        let id = try pair.client.startRequest(headers: request("GET", "/"), endStream: true)
        pair.pump()
        pair.server.sendData(stream: id, bytes("early")[...], endStream: true)
        #expect(pair.server.bufferedOutboundBytes(stream: id) == 5)
        pair.pump()
        #expect(pair.clientEvents.about(id).isEmpty)
        pair.server.sendResponseHead(stream: id, headers: fields([(":status", "200")]), endStream: false)
        pair.pump()
        #expect(pair.clientEvents.body(id) == bytes("early"))
        #expect(pair.clientEvents.about(id).last == .streamClosed(stream: id, code: .noError))
    }

    @Test func windowAvailableWhenTheQueueDrains() throws {
        let pair = try ConnectionPair()
        let id = try pair.client.startRequest(headers: request("POST", "/"), endStream: false)
        pair.pump()
        pair.client.sendData(stream: id, bytes("part")[...], endStream: false)
        _ = pair.client.takeOutput()
        #expect(pair.client.takeEvents() == [.windowAvailable(stream: id)])
        #expect(pair.client.bufferedOutboundBytes(stream: id) == 0)
        // Ending the stream drains nothing more: no second event.
        pair.client.sendData(stream: id, [][...], endStream: true)
        _ = pair.client.takeOutput()
        #expect(pair.client.takeEvents().isEmpty)
    }

    @Test func neverIndexedFieldsStayNeverIndexed() throws {
        let pair = try ConnectionPair()
        let head = request("GET", "/") + [HTTP2Header("authorization", "Bearer secret", neverIndexed: true)]
        let id = try pair.client.startRequest(headers: head, endStream: true)
        pair.pump()
        #expect(pair.serverEvents.about(id) == [.headers(stream: id, headers: head, endStream: true)])
    }

    @Test func nonUTF8ValuesRoundTripByteForByte() throws {
        let server = try serverAfterPreface()
        var block = HPACK.literals([(":method", "GET"), (":scheme", "http"), (":authority", "a"), (":path", "/")])
        block += HPACK.literal(name: bytes("x-latin"), value: [0x63, 0x61, 0x66, 0xE9])  // "café" in Latin-1
        let events = server.receive(Frame.headers(stream: 1, block: block, endStream: true).bytes)
        guard case .headers(_, let headers, _)? = events.first, let field = headers.last else {
            Issue.record("no head: \(events)")
            return
        }
        #expect(field.value == "caf\u{E9}")
        #expect(field.valueBytes == [0x63, 0x61, 0x66, 0xE9])
        #expect(HTTP2Header("x", "caf\u{E9}").valueBytes == [0x63, 0x61, 0x66, 0xC3, 0xA9])
    }

    @Test func utf8AndASCIIValuesAreReadAsText() throws {
        let server = try serverAfterPreface()
        var block = HPACK.literals([(":method", "GET"), (":scheme", "http"), (":authority", "a"), (":path", "/")])
        block += HPACK.literal(name: bytes("x-utf8"), value: [0x63, 0x61, 0x66, 0xC3, 0xA9])  // "café" in UTF-8
        block += HPACK.literal(name: bytes("x-ascii"), value: bytes("plain ~ text"))
        block += HPACK.literal(name: bytes("x-empty"), value: [])
        let events = server.receive(Frame.headers(stream: 1, block: block, endStream: true).bytes)
        guard case .headers(_, let headers, _)? = events.first else {
            Issue.record("no head: \(events)")
            return
        }
        #expect(headers.suffix(3).map(\.value) == ["caf\u{E9}", "plain ~ text", ""])
        #expect(headers.suffix(3).map(\.valueBytes) == [[0x63, 0x61, 0x66, 0xC3, 0xA9], bytes("plain ~ text"), []])
    }
}

/// What a long-lived connection keeps of the streams it served.
@Suite struct ClosedStreamTests {
    /// nghttp2 would keep every closed stream of a server for RFC 7540's priority tree (it is
    /// never told our concurrency limit), about 220 bytes a request for the connection's life;
    /// `nghttp2_option_set_no_closed_streams` drops them once closed.
    @Test func aServerForgetsEveryStreamOnceItIsClosed() throws {
        let pair = try ConnectionPair()
        var ids: [Int32] = []
        for round in 0..<300 {
            let id = try pair.client.startRequest(headers: request("GET", "/r\(round)"), endStream: true)
            pair.pump()
            pair.server.sendResponseHead(stream: id, headers: fields([(":status", "204")]), endStream: true)
            pair.pump()
            #expect(pair.serverEvents.about(id).last == .streamClosed(stream: id, code: .noError))
            ids.append(id)
        }
        let kept = ids.filter { nghttp2_session_find_stream(pair.server.session, $0) != nil }
        #expect(kept.isEmpty, "the server still holds \(kept.count) of \(ids.count) closed streams")
    }
}
