import FaultlineCore
import Testing

@testable import FaultlineHTTP1

/// Mutated valid messages must never crash the decoders nor make them loop: each run ends in
/// events or an HTTP1Error, and the same input decodes the same way however it is split.
@Suite struct RandomizedInputTests {
    static let requests = [
        "GET /index.html?x=1 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\nConnection: keep-alive\r\n\r\n",
        "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\nHost: h\r\n\r\n",
        "PUT /u HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\n0\r\nT: 1\r\n\r\n",
        "CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\ntunnel",
        "OPTIONS * HTTP/1.0\r\n\r\n",
    ]
    static let responses = [
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        "HTTP/1.0 200 OK\r\n\r\nclose delimited",
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\nframes",
    ]
    static let interesting: [UInt8] = [
        0x00, 0x09, 0x0A, 0x0D, 0x20, 0x22, 0x2C, 0x30, 0x3A, 0x3B, 0x3D, 0x46, 0x7F, 0xFF,
    ]

    static func mutate(_ input: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let position = Int.random(in: 0..<max(bytes.count, 1), using: &random)
            let byte =
                Bool.random(using: &random)
                ? interesting.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0 where !bytes.isEmpty: bytes[position] = byte
            case 1: bytes.insert(byte, at: min(position, bytes.count))
            case 2 where !bytes.isEmpty: bytes.remove(at: position)
            default:
                let length = Int.random(in: 1...16, using: &random)
                let start = min(position, bytes.count)
                bytes.insert(contentsOf: bytes[start..<min(start + length, bytes.count)], at: start)
            }
        }
        return bytes
    }

    @Test func mutatedRequests() {
        var random = SeededGenerator(seed: 0xFA17_11E5)
        let limits = HTTP1Limits(
            maxRequestLineLength: 64, maxHeaderSectionLength: 256, maxHeaderCount: 8, maxChunkLineLength: 32,
            maxTrailerSectionLength: 64)
        var outcomes: [String: Int] = [:]
        for iteration in 0..<3000 {
            let input = Self.mutate(bytes(Self.requests[iteration % Self.requests.count]), &random)
            let eof = Bool.random(using: &random)
            let whole = transcript(RequestItemDecoder(limits: limits), pieces: [input], eof: eof)
            let split = Int.random(in: 0...input.count, using: &random)
            let pieces = [Array(input[..<split]), Array(input[split...])]
            let twoPieces = transcript(RequestItemDecoder(limits: limits), pieces: pieces, eof: eof)
            #expect(twoPieces == whole, "input \(input) split at \(split)")
            outcomes[finalError(whole)?.code ?? "decoded", default: 0] += 1
        }
        // The mutations must exercise both paths, and many distinct rejections.
        #expect(outcomes["decoded", default: 0] > 150, "outcomes: \(outcomes)")
        #expect(outcomes.count > 12, "outcomes: \(outcomes)")
    }

    @Test func mutatedResponses() {
        var random = SeededGenerator(seed: 0x5EED)
        for iteration in 0..<3000 {
            let input = Self.mutate(bytes(Self.responses[iteration % Self.responses.count]), &random)
            let eof = Bool.random(using: &random)
            let methods = ["GET", "HEAD", "CONNECT"].shuffled(using: &random)
            let whole = transcript(ResponseItemDecoder(methods: methods), pieces: [input], eof: eof)
            let split = Int.random(in: 0...input.count, using: &random)
            let pieces = [Array(input[..<split]), Array(input[split...])]
            let twoPieces = transcript(ResponseItemDecoder(methods: methods), pieces: pieces, eof: eof)
            #expect(twoPieces == whole, "input \(input) split at \(split)")
        }
    }

    @Test func randomBytes() {
        var random = SeededGenerator(seed: 42)
        for _ in 0..<2000 {
            let input = (0..<Int.random(in: 0...200, using: &random)).map { _ in
                Self.interesting.randomElement(using: &random)!
            }
            _ = transcript(RequestItemDecoder(), pieces: [input], eof: true)
            _ = transcript(ResponseItemDecoder(methods: ["GET"]), pieces: [input], eof: true)
        }
    }
}
