import FaultlineCore
import Testing

@testable import FaultlineHTTP2

/// The test target's own frame builder and HPACK encoder, checked against the RFCs' examples
/// and against nghttp2 reading them.
@Suite struct FrameBuilderTests {
    @Test func hpackIntegersFollowRFC7541AppendixC1() {
        #expect(HPACK.integer(10, prefixBits: 5) == [0x0a])  // C.1.1
        #expect(HPACK.integer(1337, prefixBits: 5) == [0x1f, 0x9a, 0x0a])  // C.1.2
        #expect(HPACK.integer(42, prefixBits: 8) == [0x2a])  // C.1.3
        #expect(HPACK.integer(127, prefixBits: 7) == [0x7f, 0x00])
    }

    @Test func hpackLiteralFollowsRFC7541AppendixC22() {
        // C.2.2: "Literal Header Field without Indexing", but with an indexed name (:path, 4);
        // our form names the field itself: 0x00, then name and value strings.
        #expect(
            HPACK.literals([("custom-key", "custom-header")]) == [0x00, 0x0a] + bytes("custom-key") + [0x0d]
                + bytes("custom-header"))
    }

    @Test func frameHeaderLayout() {
        let frame = Frame.rstStream(stream: 0x0102_0304, code: .cancel)
        #expect(frame.bytes == [0, 0, 4, 3, 0, 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 8])
        #expect(Frame.parse(frame.bytes) == [frame])
        #expect(
            HTTP2Connection.frameHeader(length: 0x01_0203, type: 7, flags: 1, stream: 5) == [1, 2, 3, 7, 1, 0, 0, 0, 5])
        let goAway = HTTP2Connection.goAwayFrame(lastStreamID: 7, code: .enhanceYourCalm, debug: bytes("x"))
        #expect(
            Frame.parse(goAway) == [
                Frame(type: Frame.goAway, flags: 0, stream: 0, payload: [0, 0, 0, 7, 0, 0, 0, 0xb] + bytes("x"))
            ])
    }

    @Test func nghttp2ReadsTheHandBuiltBlocks() throws {
        let long = String(repeating: "v", count: 300)  // a length over the 7-bit prefix
        let block: [(String, String)] = [
            (":method", "GET"), (":scheme", "https"), (":authority", "a"), (":path", "/"), ("x-long", long),
        ]
        let server = try serverAfterPreface()
        let events = server.receive(Frame.headers(stream: 1, block, endStream: true).bytes)
        #expect(events == [.headers(stream: 1, headers: fields(block), endStream: true)])
    }
}
