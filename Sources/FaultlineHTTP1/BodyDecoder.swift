/// Decodes one message body after its head, in the framing the head chose.
///
/// Theory of operation: a state per framing element. Content-Length and close-delimited bodies
/// hand out whatever is buffered (up to the remaining length). Chunked bodies go
/// chunk line → chunk data → CRLF → chunk line … → last chunk → trailer section (RFC 9112 §7.1).
/// Data is handed out as slices of the input buffer as soon as it arrives, never gathered, so
/// memory stays bounded whatever the body size. Each call returns at most one step; `.needMore`
/// means the buffered bytes are exhausted.
struct BodyDecoder: Sendable {
    enum Step: Sendable {
        case data(ArraySlice<UInt8>)
        case end(trailers: HTTPHeaders?)
        case needMore
    }

    private enum State: Sendable {
        case fixed(remaining: Int64)
        case untilClose
        case chunkLine
        case chunkData(remaining: Int64)
        case chunkDataEnd
        case trailers
        case finished
    }

    private var state: State
    /// Bytes of the current chunk line already searched for LF.
    private var lineScanned = 0
    private var trailerScanner = HeadScanner()

    init(framing: BodyFraming) {
        switch framing {
        case .none, .tunnel: state = .fixed(remaining: 0)
        case .contentLength(let length): state = .fixed(remaining: length)
        case .chunked: state = .chunkLine
        case .closeDelimited: state = .untilClose
        }
    }

    /// Decodes the next piece of body from `buffer`. At EOF, a body that still expects bytes throws
    /// ``HTTP1Error/incompleteMessage``; a close-delimited body ends.
    mutating func next(
        _ buffer: inout InputBuffer, atEOF: Bool, limits: HTTP1Limits, trailerRules: HeadScanner.Rules
    ) throws(HTTP1Error) -> Step {
        while true {
            switch state {
            case .fixed(let remaining):
                if remaining == 0 {
                    state = .finished
                    return .end(trailers: nil)
                }
                let count = Int(min(Int64(buffer.readableCount), remaining))
                if count == 0 { return try needMore(atEOF) }
                state = .fixed(remaining: remaining - Int64(count))
                return .data(buffer.take(count))
            case .untilClose:
                if buffer.readableCount > 0 { return .data(buffer.take(buffer.readableCount)) }
                guard atEOF else { return .needMore }
                state = .finished
                return .end(trailers: nil)
            case .chunkLine:
                guard let size = try readChunkLine(&buffer, limits: limits) else { return try needMore(atEOF) }
                if size == 0 {
                    trailerScanner = HeadScanner()
                    state = .trailers
                } else {
                    state = .chunkData(remaining: size)
                }
            case .chunkData(let remaining):
                let count = Int(min(Int64(buffer.readableCount), remaining))
                if count == 0 { return try needMore(atEOF) }
                state = remaining == Int64(count) ? .chunkDataEnd : .chunkData(remaining: remaining - Int64(count))
                return .data(buffer.take(count))
            case .chunkDataEnd:
                // RFC 9112 §7.1: chunk-data is followed by exactly CRLF.
                if buffer.readableCount >= 1, buffer[0] != ASCII.cr { throw .invalidChunkTerminator }
                if buffer.readableCount < 2 { return try needMore(atEOF) }
                guard buffer[1] == ASCII.lf else { throw .invalidChunkTerminator }
                buffer.consume(2)
                state = .chunkLine
            case .trailers:
                guard let trailers = try readTrailers(&buffer, rules: trailerRules) else { return try needMore(atEOF) }
                state = .finished
                return .end(trailers: trailers)
            case .finished:
                preconditionFailure("body decoder used after its end")
            }
        }
    }

    private func needMore(_ atEOF: Bool) throws(HTTP1Error) -> Step {
        if atEOF { throw .incompleteMessage }
        return .needMore
    }

    /// Consumes a complete chunk-size line and returns the size, or nil when the line is incomplete.
    private mutating func readChunkLine(_ buffer: inout InputBuffer, limits: HTTP1Limits) throws(HTTP1Error) -> Int64? {
        var scanned = lineScanned
        let found = try buffer.withReadableBytes { (bytes) throws(HTTP1Error) -> (size: Int64, length: Int)? in
            guard let lf = ASCII.firstIndex(of: ASCII.lf, in: bytes, from: scanned, to: bytes.count) else {
                scanned = bytes.count
                var partialEnd = bytes.count
                if partialEnd > 0, bytes[partialEnd - 1] == ASCII.cr { partialEnd -= 1 }
                if partialEnd > limits.maxChunkLineLength { throw .chunkLineTooLong }
                return nil
            }
            let hasCR = lf > 0 && bytes[lf - 1] == ASCII.cr
            let contentEnd = hasCR ? lf - 1 : lf
            if contentEnd > limits.maxChunkLineLength { throw .chunkLineTooLong }
            guard hasCR else { throw .invalidChunkLineEnding }
            return (try ChunkLineParser.parse(bytes, 0, contentEnd), lf + 1)
        }
        guard let found else {
            lineScanned = scanned
            return nil
        }
        buffer.consume(found.length)
        lineScanned = 0
        return found.size
    }

    /// Consumes a complete trailer section (RFC 9112 §7.1.2) and returns its fields (nil when it
    /// has none), or returns nil wrapped in nil when the section is incomplete.
    private mutating func readTrailers(
        _ buffer: inout InputBuffer, rules: HeadScanner.Rules
    ) throws(HTTP1Error) -> HTTPHeaders?? {
        var scanner = trailerScanner
        let result = try buffer.withReadableBytes { (bytes) throws(HTTP1Error) -> (HTTPHeaders?, Int)? in
            guard case .complete(let length) = try scanner.scan(bytes, rules: rules) else { return nil }
            if scanner.fieldCount == 0 { return (nil, length) }
            var ignored = FramingFields()
            let fields = try FieldParser.parse(bytes, 0, length, expectedCount: scanner.fieldCount, framing: &ignored)
            return (fields, length)
        }
        trailerScanner = scanner
        guard let (trailers, length) = result else { return nil }
        buffer.consume(length)
        return .some(trailers)
    }
}
