import FaultlineHTTP1

/// `HTTP1RequestDecoder`, the proxy's and the control API's reader of client bytes.
enum HTTP1RequestFuzz {
    static func run(_ input: UnsafeRawBufferPointer) {
        HTTP1Decoding.compareWholeAndSplit(input) { RequestDecoder() }
    }
}

/// `HTTP1RequestDecoder` as an ``IncrementalHTTP1Decoder``.
struct RequestDecoder: IncrementalHTTP1Decoder {
    var decoder = HTTP1RequestDecoder()

    mutating func feed(_ bytes: UnsafeRawBufferPointer) { decoder.receive(bytes) }
    mutating func feedEOF() { decoder.receiveEOF() }

    mutating func next() throws(HTTP1Error) -> DecodedEvent<HTTPRequestHead>? {
        switch try decoder.nextEvent() {
        case nil: return nil
        case .head(let head): return .head(head)
        case .body(let bytes): return .body(Array(bytes))
        case .end(let trailers): return .end(trailers: trailers)
        }
    }
}
