import FaultlineHTTP1
import Testing

@Suite struct ObsTextRoundTripTests {
    /// RFC 9110 §5.5 allows obs-text (0x80-0xFF) in field values; a proxy must pass it unchanged.
    @Test func nonUTF8FieldBytesReencodeIdentically() throws {
        let wire: [UInt8] =
            Array("GET / HTTP/1.1\r\nHost: a\r\nX-Latin: caf".utf8) + [0xE9] + Array("\r\nX-Utf8: caf".utf8)
            + [0xC3, 0xA9] + Array("\r\n\r\n".utf8)
        var decoder = HTTP1RequestDecoder()
        decoder.receive(wire)
        guard case .head(let head)? = try decoder.nextEvent() else {
            Issue.record("no head")
            return
        }
        #expect(head.headers.first(name: "x-latin") == "caf\u{E9}")
        #expect(head.headers.first(name: "x-utf8") == "caf\u{E9}")
        var copy = HTTPHeaders()
        for field in head.headers { copy.append(field) }
        var encoded: [UInt8] = []
        HTTP1Encoder.encode(
            HTTPRequestHead(method: "GET", target: "/", version: .http1_1, headers: copy), into: &encoded)
        #expect(encoded == wire)
    }
}
