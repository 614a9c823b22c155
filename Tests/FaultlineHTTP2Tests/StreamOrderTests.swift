import FaultlineCore
import Testing

@testable import FaultlineHTTP2

/// RFC 9113 §5.1.1: a client's new stream IDs increase, and a HEADERS on an ID it skipped is a
/// connection error, PROTOCOL_ERROR; a late HEADERS on a stream that was opened is not.
@Suite struct StreamOrderTests {
    static let postBlock: [(String, String)] = [
        (":method", "POST"), (":scheme", "https"), (":authority", "example.test"), (":path", "/"),
    ]
    static let getBlock = MalformedInputTests.getBlock

    @Test func headersOnASkippedStreamIDEndTheConnection() throws {
        let input =
            Frame.clientPreface + Frame.headers(stream: 1, Self.getBlock, endStream: true).bytes
            + Frame.headers(stream: 5, Self.getBlock, endStream: true).bytes
            + Frame.headers(stream: 3, Self.getBlock, endStream: true).bytes
        let (events, frames, server) = try MalformedInputTests.serve(input)
        #expect(events.about(3).isEmpty, "stream 3 opened nothing")
        #expect(events.connectionErrors.count == 1)
        if case .connectionError(let code, let reason)? = events.connectionErrors.first {
            #expect(code == .protocolError)
            #expect(reason.contains("stream 3") && reason.contains("§5.1.1"), "\(reason)")
        }
        #expect(frames.ofType(Frame.goAway).map(\.errorCode) == [.protocolError])
        #expect(frames.ofType(Frame.goAway).map(\.lastStreamID) == [5])
        #expect(server.connectionErrorLastStreamID == 5)
        #expect(server.isFinished)
    }

    /// The first client ID is 1: a first HEADERS on 3 then one on 1 is out of order too.
    @Test func theFirstStreamIDsCountAsSkipped() throws {
        let input =
            Frame.clientPreface + Frame.headers(stream: 3, Self.getBlock, endStream: true).bytes
            + Frame.headers(stream: 1, Self.getBlock, endStream: true).bytes
        let (events, _, _) = try MalformedInputTests.serve(input)
        #expect(events.connectionErrors.count == 1)
        #expect(events.about(1).isEmpty)
    }

    /// Trailers crossing our RST_STREAM (§5.1: frames on a stream we reset are ignored) are a
    /// HEADERS on a lower, gone stream that was opened: no connection error.
    @Test func lateTrailersOnAStreamWeResetAreIgnored() throws {
        let server = try HTTP2Connection(role: .server)
        var events = server.receive(
            Frame.clientPreface + Frame.headers(stream: 1, Self.postBlock).bytes
                + Frame.headers(stream: 3, Self.postBlock).bytes)
        server.reset(stream: 1, code: .cancel)
        _ = server.takeOutput()
        events += server.takeEvents()
        #expect(events.contains(.streamClosed(stream: 1, code: .cancel)))
        events = server.receive(
            Frame.headers(stream: 1, [("x-trailer", "late")], endStream: true).bytes
                + Frame.data(stream: 3, Array("body".utf8), endStream: true).bytes)
        let frames = Frame.parse(server.takeOutput())
        #expect(events.connectionErrors.isEmpty && frames.ofType(Frame.goAway).isEmpty)
        #expect(events.about(3) == [.data(stream: 3, bytes: Array("body".utf8), endStream: true)])
    }

    /// A refused stream's ID was used: its late trailers are ignored too.
    @Test func lateTrailersOnARefusedStreamAreIgnored() throws {
        var limits = HTTP2Connection.Limits()
        limits.maxConcurrentStreams = 1
        let (events, _, server) = try MalformedInputTests.serve(
            Frame.clientPreface + Frame.headers(stream: 1, Self.postBlock).bytes
                + Frame.headers(stream: 3, Self.postBlock).bytes, limits)
        #expect(events.streamErrors == [3])
        let late = server.receive(Frame.headers(stream: 3, [("x-trailer", "late")], endStream: true).bytes)
        #expect(late.connectionErrors.isEmpty)
        #expect(Frame.parse(server.takeOutput()).ofType(Frame.goAway).isEmpty)
    }

    @Test func peerStreamIDsRememberGapsBoundedly() {
        var ids = PeerStreamIDs()
        #expect(ids.headers(on: 1) == .new)
        #expect(ids.headers(on: 7) == .new)
        #expect(ids.headers(on: 1) == .seen)
        #expect(ids.headers(on: 3) == .skipped && ids.headers(on: 5) == .skipped)
        #expect(ids.headers(on: 9) == .new && ids.headers(on: 7) == .seen)
        // Past maximumGaps gaps the oldest are forgotten: treated as seen (nghttp2 ignores them).
        var next: Int32 = 9
        for _ in 0..<PeerStreamIDs.maximumGaps {
            next += 4
            #expect(ids.headers(on: next) == .new)
        }
        #expect(ids.headers(on: 3) == .seen, "the first gap is forgotten")
        #expect(ids.headers(on: next - 2) == .skipped, "the last gap is remembered")
        #expect(ids.headers(on: next - 4) == .seen)
    }
}
