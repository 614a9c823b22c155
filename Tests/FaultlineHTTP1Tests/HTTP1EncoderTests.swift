import Testing

@testable import FaultlineHTTP1

@Suite struct HTTP1EncoderTests {
    @Test func requestHeadBytes() {
        var buffer: [UInt8] = []
        HTTP1Encoder.encode(
            HTTPRequestHead(method: "GET", target: "/x", headers: [("Host", "h"), ("Accept", "*/*")]), into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "GET /x HTTP/1.1\r\nHost: h\r\nAccept: */*\r\n\r\n")
    }

    @Test func responseHeadBytes() {
        var buffer: [UInt8] = []
        HTTP1Encoder.encode(HTTPResponseHead(status: 204), into: &buffer)
        HTTP1Encoder.encode(HTTPResponseHead(version: .http1_0, status: 404, reason: "Not Found"), into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "HTTP/1.1 204 \r\n\r\nHTTP/1.0 404 Not Found\r\n\r\n")
    }

    @Test func chunks() {
        var buffer: [UInt8] = []
        HTTP1Encoder.encodeChunk([UInt8](), into: &buffer)
        #expect(buffer.isEmpty, "an empty chunk would end the body")
        HTTP1Encoder.encodeChunk(bytes("abc"), into: &buffer)
        HTTP1Encoder.encodeChunk([UInt8](repeating: 0x78, count: 300)[...], into: &buffer)
        HTTP1Encoder.encodeLastChunk(trailers: nil, into: &buffer)
        let expected = "3\r\nabc\r\n12c\r\n" + String(repeating: "x", count: 300) + "\r\n0\r\n\r\n"
        #expect(String(decoding: buffer, as: UTF8.self) == expected)
        buffer.removeAll()
        HTTP1Encoder.encodeLastChunk(trailers: [("A", "1")], into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "0\r\nA: 1\r\n\r\n")
    }

    @Test func requestRoundTrip() {
        let head = HTTPRequestHead(
            method: "POST", target: "/upload?id=7",
            headers: [("Host", "example.com"), ("Transfer-Encoding", "chunked"), ("X-Custom", "a, b")])
        let pieces = [bytes("first "), [UInt8](repeating: 0x41, count: 1000), bytes("last")]
        var wire: [UInt8] = []
        HTTP1Encoder.encode(head, into: &wire)
        for piece in pieces { HTTP1Encoder.encodeChunk(piece, into: &wire) }
        HTTP1Encoder.encodeLastChunk(trailers: [("Digest", "sha-256=x")], into: &wire)
        let items = transcript(RequestItemDecoder(), pieces: [wire], eof: true)
        #expect(items == [.requestHead(head), .body(pieces.flatMap { $0 }), .end([("Digest", "sha-256=x")])])
    }

    @Test func responseRoundTrip() {
        let head = HTTPResponseHead(status: 200, reason: "OK", headers: [("Transfer-Encoding", "chunked")])
        var wire: [UInt8] = []
        HTTP1Encoder.encode(head, into: &wire)
        bytes("hello").withUnsafeBytes { HTTP1Encoder.encodeChunk($0, into: &wire) }
        HTTP1Encoder.encodeLastChunk(trailers: nil, into: &wire)
        HTTP1Encoder.encode(HTTPResponseHead(status: 304, reason: "Not Modified"), into: &wire)
        let items = decodeAtEverySplit(ResponseItemDecoder(methods: ["GET", "GET"]), wire)
        #expect(
            items == [
                .responseHead(head), .body(bytes("hello")), .end(nil),
                .responseHead(HTTPResponseHead(status: 304, reason: "Not Modified")), .end(nil),
            ])
    }
}
