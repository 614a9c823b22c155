import FaultlineHTTP1

/// The chunked body decoder (RFC 9112 §7.1: chunk lines, extensions, data, trailers), reached
/// through the public request decoder: a fixed head that says `Transfer-Encoding: chunked`, then
/// the input as its body. The head is fixed so every mutation lands in the body.
enum ChunkedBodyFuzz {
    static let head = Array("POST /upload HTTP/1.1\r\nHost: origin.test\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)

    static func run(_ input: UnsafeRawBufferPointer) {
        let message = head + Array(input)
        message.withUnsafeBytes { bytes in
            HTTP1Decoding.compareWholeAndSplit(bytes) { RequestDecoder() }
            // The body alone can never yield more than the input: the framing only removes bytes.
            var decoder = RequestDecoder()
            var plan = SplitPlan(input, salt: 2)
            let run = HTTP1Decoding.run(&decoder, bytes, pieces: plan.pieces(bytes.count))
            let body = run.events.reduce(0) { total, event in
                if case .body(let bytes) = event { return total + bytes.count }
                return total
            }
            fuzzCheck(body <= input.count, "\(body) body bytes from a \(input.count)-byte chunked body")
        }
    }
}
