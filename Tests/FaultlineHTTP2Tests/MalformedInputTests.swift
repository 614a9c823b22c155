import FaultlineCore
import Testing

@testable import FaultlineHTTP2

/// A peer's protocol violations are values: `.connectionError` with a GOAWAY, or `.streamError`
/// with an RST_STREAM; never a crash.
@Suite struct MalformedInputTests {
    /// A server fed `input` in one piece: its events and the frames it wrote.
    static func serve(_ input: [UInt8], _ limits: HTTP2Connection.Limits = .init()) throws -> (
        events: [HTTP2Event], frames: [Frame], server: HTTP2Connection
    ) {
        let server = try HTTP2Connection(role: .server, limits: limits)
        var events = server.receive(input)
        let frames = Frame.parse(server.takeOutput())
        events += server.takeEvents()
        return (events, frames, server)
    }

    static let getBlock: [(String, String)] = [
        (":method", "GET"), (":scheme", "https"), (":authority", "example.test"), (":path", "/"),
    ]

    @Test func garbageInsteadOfThePreface() throws {
        let (events, frames, server) = try Self.serve(bytes("GET / HTTP/1.1\r\nHost: example.test\r\n\r\n"))
        #expect(events.count == 1)
        guard case .connectionError(let code, let reason)? = events.first else {
            Issue.record("expected a connection error: \(events)")
            return
        }
        #expect(code == .protocolError)
        #expect(reason.contains("preface"))
        // Our preface (an empty SETTINGS) and then the GOAWAY (RFC 9113 §3.4, §5.4.1).
        #expect(frames.map(\.type) == [Frame.settings, Frame.goAway])
        #expect(frames.last?.errorCode == .protocolError && frames.last?.lastStreamID == 0)
        #expect(server.isFinished && !server.wantsWrite)
        // Whatever comes later is ignored.
        #expect(server.receive(Frame.clientPreface).isEmpty)
        #expect(server.takeOutput().isEmpty)
    }

    @Test func garbageAfterSomeOutputHasNoSecondPreface() throws {
        let server = try HTTP2Connection(role: .server)
        let first = Frame.parse(server.takeOutput())
        #expect(first.map(\.type) == [Frame.settings, Frame.windowUpdate])
        _ = server.receive(bytes("PRI * HTTP/1.1\r\n"))
        #expect(Frame.parse(server.takeOutput()).map(\.type) == [Frame.goAway])
    }

    @Test func garbageFromAServer() throws {
        let client = try HTTP2Connection(role: .client)
        _ = client.takeOutput()
        let events = client.receive(bytes("HTTP/1.1 400 Bad Request\r\n\r\n"))
        #expect(events.connectionErrors.count == 1)
        let frames = Frame.parse(client.takeOutput())
        #expect(frames.ofType(Frame.goAway).map(\.errorCode) == [.protocolError])
        #expect(client.isFinished)
    }

    @Test func headersForStreamZero() throws {
        let input = Frame.clientPreface + Frame.headers(stream: 0, Self.getBlock, endStream: true).bytes
        let (events, frames, server) = try Self.serve(input)
        #expect(
            events.connectionErrors == [
                .connectionError(code: .protocolError, reason: "request HEADERS: stream_id == 0")
            ])
        #expect(frames.ofType(Frame.goAway).map(\.errorCode) == [.protocolError])
        #expect(server.isFinished)
    }

    @Test func dataOnAnIdleStream() throws {
        let input = Frame.clientPreface + Frame.data(stream: 1, bytes("surprise"), endStream: true).bytes
        let (events, frames, _) = try Self.serve(input)
        #expect(events.connectionErrors.count == 1)
        if case .connectionError(let code, let reason)? = events.connectionErrors.first {
            #expect(code == .protocolError)
            #expect(reason.contains("idle"))
        }
        #expect(frames.ofType(Frame.goAway).map(\.errorCode) == [.protocolError])
        #expect(events.about(1).isEmpty)
    }

    @Test func missingPathIsAStreamError() throws {
        let block = Self.getBlock.filter { $0.0 != ":path" }
        let input = Frame.clientPreface + Frame.headers(stream: 1, block, endStream: true).bytes
        let (events, frames, server) = try Self.serve(input)
        #expect(events.connectionErrors.isEmpty)
        #expect(events.streamErrors == [1])
        #expect(!events.contains { if case .headers = $0 { true } else { false } })
        #expect(frames.ofType(Frame.rstStream).map(\.stream) == [1])
        #expect(frames.ofType(Frame.rstStream).map(\.errorCode) == [.protocolError])
        #expect(frames.ofType(Frame.goAway).isEmpty)
        // The connection goes on: the next stream is served.
        let next = server.receive(Frame.headers(stream: 3, Self.getBlock, endStream: true).bytes)
        #expect(next.about(3).first == .headers(stream: 3, headers: fields(Self.getBlock), endStream: true))
    }

    @Test func connectionSpecificFieldIsAStreamError() throws {
        let input = Frame.clientPreface + Frame.headers(stream: 1, Self.getBlock + [("connection", "close")]).bytes
        let (events, frames, _) = try Self.serve(input)
        #expect(events.streamErrors == [1])
        #expect(frames.ofType(Frame.rstStream).map(\.errorCode) == [.protocolError])
    }

    @Test func contentLengthLargerThanTheData() throws {
        let block = [
            (":method", "POST"), (":scheme", "https"), (":authority", "a"), (":path", "/"), ("content-length", "10"),
        ]
        let input =
            Frame.clientPreface + Frame.headers(stream: 1, block).bytes
            + Frame.data(stream: 1, bytes("abc"), endStream: true).bytes
        let (events, frames, _) = try Self.serve(input)
        #expect(events.about(1).first == .headers(stream: 1, headers: fields(block), endStream: false))
        #expect(events.streamErrors == [1])
        #expect(events.body(1).isEmpty)  // the DATA that broke the rule is not delivered
        #expect(frames.ofType(Frame.rstStream).map(\.errorCode) == [.protocolError])
        #expect(events.about(1).last == .streamClosed(stream: 1, code: .protocolError))
    }

    @Test func aRejectedDataFrameStillGivesTheConnectionWindowBack() throws {
        var limits = HTTP2Connection.Limits()
        limits.connectionWindowSize = 65535  // WINDOW_UPDATE once 32,768 bytes are consumed
        let block = [
            (":method", "POST"), (":scheme", "https"), (":authority", "a"), (":path", "/"), ("content-length", "40000"),
        ]
        let chunk = [UInt8](repeating: 0x61, count: 16384)
        let input =
            Frame.clientPreface + Frame.headers(stream: 1, block).bytes + Frame.data(stream: 1, chunk).bytes
            + Frame.data(stream: 1, chunk, endStream: true).bytes  // 32,768 bytes, not 40,000
        let server = try HTTP2Connection(role: .server, limits: limits)
        let events = server.receive(input)
        #expect(events.body(1).count == chunk.count)  // the first frame; the second broke the rule
        #expect(events.streamErrors == [1])
        _ = server.takeOutput()
        // The caller hands on what it got; the rejected frame is credited by the connection.
        server.consumed(stream: 1, bytes: chunk.count)
        let updates = Frame.parse(server.takeOutput()).ofType(Frame.windowUpdate)
        #expect(updates.map(\.stream) == [0])
        #expect(updates.map(\.payload) == [Frame.be32(32768)])
    }

    @Test func contentLengthSmallerThanTheData() throws {
        let block = [
            (":method", "POST"), (":scheme", "https"), (":authority", "a"), (":path", "/"), ("content-length", "2"),
        ]
        let input =
            Frame.clientPreface + Frame.headers(stream: 1, block).bytes
            + Frame.data(stream: 1, bytes("abcdef"), endStream: false).bytes
        let (events, frames, _) = try Self.serve(input)
        #expect(events.streamErrors == [1])
        #expect(frames.ofType(Frame.rstStream).map(\.errorCode) == [.protocolError])
    }

    @Test func trailersWithoutEndStreamAreAStreamError() throws {
        let input =
            Frame.clientPreface + Frame.headers(stream: 1, Self.getBlock).bytes
            + Frame.headers(stream: 1, [("x-trailer", "1")], endStream: false).bytes
        let (events, frames, _) = try Self.serve(input)
        #expect(events.streamErrors == [1])
        #expect(frames.ofType(Frame.rstStream).map(\.errorCode) == [.protocolError])
    }

    @Test func refusalsAreEventsOfTheReceiveThatCausedThem() throws {
        // nghttp2 decides on RST_STREAM and GOAWAY inside mem_recv without always telling a
        // callback; receive() drains those frames so the event comes now, not at takeOutput.
        let server = try serverAfterPreface()
        let block = Self.getBlock.filter { $0.0 != ":path" }
        #expect(server.receive(Frame.headers(stream: 1, block, endStream: true).bytes).streamErrors == [1])
        #expect(server.receive(Frame.headers(stream: 0, Self.getBlock).bytes).connectionErrors.count == 1)
        #expect(server.wantsWrite)
        let frames = Frame.parse(server.takeOutput())
        #expect(frames.map(\.type) == [Frame.rstStream, Frame.goAway])
        #expect(server.takeEvents() == [])
    }

    @Test func truncatedAndRandomInputNeverCrashes() throws {
        var generator = SeededGenerator(seed: 0x5eed)
        let valid =
            Frame.clientPreface + Frame.headers(stream: 1, Self.getBlock).bytes
            + Frame.data(stream: 1, bytes("body"), endStream: true).bytes + Frame.ping(42).bytes
        for _ in 0..<300 {
            var input = valid
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let index = Int(generator.next() % UInt64(input.count))
                input[index] = UInt8(truncatingIfNeeded: generator.next())
            }
            let server = try HTTP2Connection(role: .server)
            _ = server.receive(input)
            _ = server.takeOutput()
            _ = server.takeEvents()
        }
    }
}
