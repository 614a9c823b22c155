import FaultlineCore
import Testing

@testable import FaultlineHTTP2

/// A header block is open from its HEADERS frame's header to the last octet of its END_HEADERS
/// frame (``HTTP2Connection/unfinishedHeaderBlock``, `HeaderBlockTracker`): a HEADERS frame that
/// trickles in is as unfinished as a CONTINUATION that does not come, and a block nghttp2 skips
/// ends with its frame all the same.
@Suite struct HeaderBlockTrackerTests {
    /// One octet at a time, as a slowloris client sends it: open from the frame header on, and
    /// finished by the payload's last octet, when nghttp2 hands on the request.
    @Test func aTrickledHeadersFrameIsAnOpenBlockUntilItsLastOctet() throws {
        let server = try HTTP2Connection(role: .server)
        _ = server.receive(Frame.clientPreface)
        let frame = Frame.headers(stream: 1, MalformedInputTests.getBlock, endStream: true).bytes
        for (index, octet) in frame.enumerated() {
            let events = server.receive([octet])
            if index < 8 {
                #expect(server.unfinishedHeaderBlock == nil, "only a frame header's last octet begins the block")
            } else if index < frame.count - 1 {
                #expect(server.unfinishedHeaderBlock == 1, "octet \(index) of \(frame.count)")
                #expect(events.isEmpty)
            } else {
                #expect(server.unfinishedHeaderBlock == nil)
                #expect(events.contains { if case .headers(1, _, true) = $0 { true } else { false } })
            }
        }
    }

    /// A stream over the concurrency limit is refused from `on_begin_headers`: nghttp2 decodes
    /// the rest of its block for HPACK's sake and reports nothing when it ends. The block still
    /// ends with its frame, so a client that waits quietly for its other streams afterwards is not
    /// taken for one that stalls a header block.
    @Test func aRefusedStreamsBlockEndsWithItsFrame() throws {
        var limits = HTTP2Connection.Limits()
        limits.maxConcurrentStreams = 1
        let server = try HTTP2Connection(role: .server, limits: limits)
        _ = server.receive(
            Frame.clientPreface + Frame.headers(stream: 1, MalformedInputTests.getBlock, endStream: false).bytes)
        _ = server.takeOutput()
        let refused = Frame.headers(stream: 3, MalformedInputTests.getBlock, endStream: true).bytes
        // nghttp2 refuses the stream as soon as the frame header is in.
        let events = server.receive(Array(refused.prefix(12)))
        #expect(events.contains { if case .streamError(3, _) = $0 { true } else { false } })
        #expect(server.unfinishedHeaderBlock == 2)
        _ = server.receive(Array(refused.dropFirst(12)))
        #expect(server.unfinishedHeaderBlock == nil)
    }

    /// Frames between blocks (SETTINGS, DATA, a PING with its fixed payload) are skipped by their
    /// length: a header block's octets are never looked for inside another frame's payload.
    @Test func otherFramesPayloadsAreSkipped() throws {
        let server = try HTTP2Connection(role: .server)
        _ = server.receive(
            Frame.clientPreface + Frame.headers(stream: 1, MalformedInputTests.getBlock, endStream: false).bytes)
        // A DATA payload that looks like a HEADERS frame header, split across reads.
        let lookalike = Frame.headers(stream: 3, block: [1, 2, 3], endHeaders: false).bytes
        let data = Frame.data(stream: 1, lookalike).bytes
        _ = server.receive(Array(data.prefix(11)))
        _ = server.receive(Array(data.dropFirst(11)))
        #expect(server.unfinishedHeaderBlock == nil)
        _ = server.receive(Frame.ping(7).bytes)
        #expect(server.unfinishedHeaderBlock == nil)
    }
}
