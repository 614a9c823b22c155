import FaultlineHTTP1

/// `HTTP1ResponseDecoder`, the reader of origin bytes. The requests it answers (GET, HEAD, POST,
/// CONNECT: each frames a response differently) are drawn from the input, the same for the
/// whole and the split run.
enum HTTP1ResponseFuzz {
    static let methods = ["GET", "GET", "POST", "HEAD", "CONNECT"]

    static func run(_ input: UnsafeRawBufferPointer) {
        var plan = SplitPlan(input, salt: 1)
        let sent = (0..<(1 + plan.below(6))).map { _ in methods[plan.below(methods.count)] }
        HTTP1Decoding.compareWholeAndSplit(input) { ResponseDecoder(sent: sent) }
    }
}

/// `HTTP1ResponseDecoder` as an ``IncrementalHTTP1Decoder``, expecting answers to `sent`.
struct ResponseDecoder: IncrementalHTTP1Decoder {
    var decoder = HTTP1ResponseDecoder()

    init(sent: [String]) {
        for method in sent { decoder.expectResponse(toMethod: method) }
    }

    mutating func feed(_ bytes: UnsafeRawBufferPointer) { decoder.receive(bytes) }
    mutating func feedEOF() { decoder.receiveEOF() }

    mutating func next() throws(HTTP1Error) -> DecodedEvent<HTTPResponseHead>? {
        switch try decoder.nextEvent() {
        case nil: return nil
        case .interim(let head): return .interim(head)
        case .head(let head): return .head(head)
        case .body(let bytes): return .body(Array(bytes))
        case .end(let trailers): return .end(trailers: trailers)
        }
    }
}
