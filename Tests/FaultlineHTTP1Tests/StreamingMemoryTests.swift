import Testing

@testable import FaultlineHTTP1

/// Long bodies must stream through a bounded buffer: nothing accumulates.
@Suite struct StreamingMemoryTests {
    static let totalBytes = 64 << 20
    static let pieceSize = 64 << 10
    /// Twice a piece plus slack for Array's growth policy.
    static let capacityBound = 4 * pieceSize

    @Test func contentLengthRequestBody() throws {
        var decoder = HTTP1RequestDecoder()
        decoder.receive(bytes("PUT /big HTTP/1.1\r\nHost: h\r\nContent-Length: \(Self.totalBytes)\r\n\r\n"))
        guard case .head = try decoder.nextEvent() else { Issue.record("expected head"); return }
        let piece = [UInt8](repeating: 0x5A, count: Self.pieceSize)
        var received = 0
        var maxCapacity = 0
        var ended = false
        for _ in 0..<(Self.totalBytes / Self.pieceSize) {
            decoder.receive(piece)
            while let event = try decoder.nextEvent() {
                switch event {
                case .body(let slice): received += slice.count
                case .end: ended = true
                default: Issue.record("unexpected \(event)")
                }
            }
            maxCapacity = max(maxCapacity, decoder.bufferCapacity)
            #expect(decoder.bufferedByteCount == 0)
        }
        #expect(received == Self.totalBytes)
        #expect(ended)
        #expect(maxCapacity <= Self.capacityBound, "buffer grew to \(maxCapacity)")
    }

    /// Between keep-alive requests the decoder holds no buffer once told to give it back; bytes
    /// of a next request already buffered are kept, and decoding carries on either way.
    @Test func anIdleDecoderGivesItsBufferBack() throws {
        var decoder = HTTP1RequestDecoder()
        decoder.receive(bytes("GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HT"))
        guard case .head = try decoder.nextEvent(), case .end = try decoder.nextEvent() else {
            Issue.record("expected the first request")
            return
        }
        #expect(try decoder.nextEvent() == nil)
        decoder.releaseIdleStorage()
        #expect(decoder.bufferedByteCount == 9 && decoder.bufferCapacity >= 9, "the next request's bytes stay")
        decoder.receive(bytes("TP/1.1\r\nHost: h\r\n\r\n"))
        guard case .head(let second) = try decoder.nextEvent(), case .end = try decoder.nextEvent() else {
            Issue.record("expected the second request")
            return
        }
        #expect(second.target == "/b")
        #expect(decoder.bufferCapacity > 0)
        decoder.releaseIdleStorage()
        #expect(decoder.bufferCapacity == 0)
        decoder.receive(bytes("GET /c HTTP/1.1\r\nHost: h\r\n\r\n"))
        guard case .head(let third) = try decoder.nextEvent() else {
            Issue.record("expected the third request")
            return
        }
        #expect(third.target == "/c")
    }

    @Test func chunkedResponseBodyWithMisalignedPieces() throws {
        var decoder = HTTP1ResponseDecoder()
        decoder.expectResponse(toMethod: "GET")
        decoder.receive(bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"))
        guard case .head = try decoder.nextEvent() else { Issue.record("expected head"); return }
        // Chunks of 40000 bytes, so chunk lines straddle the 64 KiB pieces.
        var wire: [UInt8] = []
        let chunk = [UInt8](repeating: 0x61, count: 40_000)
        let chunkCount = Self.totalBytes / chunk.count
        for _ in 0..<chunkCount { HTTP1Encoder.encodeChunk(chunk, into: &wire) }
        HTTP1Encoder.encodeLastChunk(trailers: nil, into: &wire)
        var received = 0
        var maxCapacity = 0
        var ended = false
        var offset = 0
        while offset < wire.count {
            let end = min(offset + Self.pieceSize, wire.count)
            decoder.receive(wire[offset..<end])
            offset = end
            while let event = try decoder.nextEvent() {
                switch event {
                case .body(let slice): received += slice.count
                case .end: ended = true
                default: Issue.record("unexpected \(event)")
                }
            }
            maxCapacity = max(maxCapacity, decoder.bufferCapacity)
        }
        #expect(ended)
        #expect(received == chunkCount * chunk.count)
        #expect(maxCapacity <= Self.capacityBound, "buffer grew to \(maxCapacity)")
    }

    @Test func pipelinedHeadsDoNotAccumulate() throws {
        var decoder = HTTP1RequestDecoder()
        let request = bytes("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        // Many requests per piece, cut at odd places, decoded as they come.
        let stream = Array((0..<20_000).map { _ in request }.joined())
        var heads = 0
        var offset = 0
        var maxCapacity = 0
        while offset < stream.count {
            let end = min(offset + 4099, stream.count)
            decoder.receive(stream[offset..<end])
            offset = end
            while let event = try decoder.nextEvent() { if case .head = event { heads += 1 } }
            maxCapacity = max(maxCapacity, decoder.bufferCapacity)
        }
        #expect(heads == 20_000)
        #expect(maxCapacity <= 4 * 4099)
    }
}
