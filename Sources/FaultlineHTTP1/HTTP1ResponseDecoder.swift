/// Decodes the responses an upstream server sends on one connection, sans I/O (RFC 9112).
///
/// Call ``expectResponse(toMethod:)`` once per request sent, in order, before its response is
/// decoded: the method decides whether a body follows (HEAD, CONNECT). Feed bytes with
/// ``receive(_:)-(UnsafeRawBufferPointer)``, call ``nextEvent()`` until it returns nil, and call
/// ``receiveEOF()`` when the server closes (which ends a close-delimited body). Each response is
/// `.interim`… (1xx other than 101), `.head`, `.body`…, `.end`. Every error has status 502.
///
/// Theory of operation: like ``HTTP1RequestDecoder``, with a FIFO of the methods of the requests
/// awaiting a response. An interim response leaves its request at the front of the queue; a final
/// one removes it. After 101, or a 2xx to CONNECT, the decoder emits `.end` and enters the tunnel
/// state, where it decodes nothing and ``takeBufferedBytes()`` hands over what follows.
public struct HTTP1ResponseDecoder: Sendable {
    private enum State: Sendable {
        case head
        case body
        case tunnel
        case failed(HTTP1Error)
    }

    private let limits: HTTP1Limits
    private let headRules: HeadScanner.Rules
    private let trailerRules: HeadScanner.Rules
    private var state = State.head
    private var buffer = InputBuffer()
    private var scanner = HeadScanner()
    private var statusLine: ParsedStatusLine?
    private var pending = MethodQueue()
    private var sawInterim = false
    private var body = BodyDecoder(framing: .none)
    private var tunnelAfterBody = false

    /// The framing of the response being decoded, valid from its `.head` on (`.tunnel` for 101
    /// and for a 2xx to CONNECT).
    public private(set) var framing = BodyFraming.none

    /// Whether ``receiveEOF()`` was called.
    public private(set) var sawEOF = false

    /// A decoder for a new upstream connection.
    public init(limits: HTTP1Limits = .default) {
        self.limits = limits
        headRules = .response(limits)
        trailerRules = .trailers(limits)
    }

    /// Announces that a request with `method` was sent, so one more response is expected. Call it
    /// once per request, in the order the requests were sent.
    public mutating func expectResponse(toMethod method: String) {
        pending.append(MethodKind(method))
    }

    /// Appends bytes received from the server. Bytes received after ``receiveEOF()`` or after an
    /// error are dropped.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        guard accepts else { return }
        buffer.append(bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// Appends bytes received from the server (see ``receive(_:)-(UnsafeRawBufferPointer)``).
    public mutating func receive(_ bytes: some Sequence<UInt8>) {
        guard accepts else { return }
        buffer.append(contentsOf: bytes)
    }

    private var accepts: Bool {
        if sawEOF { return false }
        if case .failed = state { return false }
        return true
    }

    /// Records that the server closed the connection: a close-delimited body then ends, a message
    /// cut short throws ``HTTP1Error/incompleteMessage`` (status 502), and at a message boundary
    /// ``nextEvent()`` returns nil (even if responses were still expected: check ``sawEOF``).
    public mutating func receiveEOF() {
        sawEOF = true
    }

    /// Bytes received and not yet decoded.
    public var bufferedByteCount: Int { buffer.readableCount }

    /// True when every response whose `.head` (or `.interim`) was returned has also returned its
    /// `.end`. False in a tunnel and after an error.
    public var isAtMessageBoundary: Bool {
        if case .head = state { return !sawInterim }
        return false
    }

    /// Number of responses expected and not yet fully decoded.
    public var expectedResponseCount: Int { pending.count }

    /// Hands over the undecoded bytes and forgets them: after 101 or a 2xx to CONNECT they belong
    /// to the tunnel.
    public mutating func takeBufferedBytes() -> [UInt8] {
        buffer.takeAll()
    }

    /// Allocated size of the internal buffer, for memory-bound tests.
    var bufferCapacity: Int { buffer.capacity }

    /// Decodes the next event from the buffered bytes. Returns nil when more bytes are needed, in a
    /// tunnel, or at EOF on a message boundary. Throws the server's protocol error (status 502);
    /// after an error every call throws that same error.
    public mutating func nextEvent() throws(HTTP1Error) -> HTTP1ResponseEvent? {
        do throws(HTTP1Error) {
            switch state {
            case .head: return try decodeHead()
            case .body: return try decodeBody()
            case .tunnel: return nil
            case .failed(let error): throw error
            }
        } catch {
            let upstreamError = error.asResponseError
            state = .failed(upstreamError)
            throw upstreamError
        }
    }

    private mutating func decodeHead() throws(HTTP1Error) -> HTTP1ResponseEvent? {
        guard let method = pending.first else {
            if buffer.readableCount > 0 { throw .unsolicitedResponse }
            return nil
        }
        let rules = headRules
        while true {
            var scanner = self.scanner
            let step = try buffer.withReadableBytes { (bytes) throws(HTTP1Error) in
                try scanner.scan(bytes, rules: rules)
            }
            self.scanner = scanner
            switch step {
            case .needMore:
                if sawEOF, buffer.readableCount > 0 { throw .incompleteMessage }
                return nil
            case .emptyLeadingLine:
                preconditionFailure("status-line rules do not skip empty lines")
            case .startLine(let range):
                statusLine = try buffer.withReadableBytes { (bytes) throws(HTTP1Error) in
                    try StartLineParser.parseStatusLine(bytes, range)
                }
            case .complete(let length):
                guard let statusLine else { preconditionFailure("head complete before its status-line") }
                let fieldCount = scanner.fieldCount
                let fieldsStart = scanner.fieldsStart
                let (head, framing) = try buffer.withReadableBytes { (bytes) throws(HTTP1Error) in
                    try Self.buildHead(statusLine, method, bytes, fieldsStart, length, fieldCount: fieldCount)
                }
                buffer.consume(length)
                self.scanner = HeadScanner()
                self.statusLine = nil
                // RFC 9110 §15.2: 1xx responses (but 101) are interim; the final response follows.
                if head.status < 200, head.status != 101 {
                    sawInterim = true
                    return .interim(head)
                }
                sawInterim = false
                pending.removeFirst()
                self.framing = framing
                tunnelAfterBody = framing == .tunnel
                body = BodyDecoder(framing: framing)
                state = .body
                return .head(head)
            }
        }
    }

    private mutating func decodeBody() throws(HTTP1Error) -> HTTP1ResponseEvent? {
        switch try body.next(&buffer, atEOF: sawEOF, limits: limits, trailerRules: trailerRules) {
        case .needMore:
            return nil
        case .data(let bytes):
            return .body(bytes)
        case .end(let trailers):
            state = tunnelAfterBody ? .tunnel : .head
            return .end(trailers: trailers)
        }
    }

    private static func buildHead(
        _ line: ParsedStatusLine, _ method: MethodKind, _ bytes: UnsafeBufferPointer<UInt8>, _ fieldsStart: Int,
        _ end: Int, fieldCount: Int
    ) throws(HTTP1Error) -> (HTTPResponseHead, BodyFraming) {
        var fields = FramingFields()
        let headers = try FieldParser.parse(bytes, fieldsStart, end, expectedCount: fieldCount, framing: &fields)
        let head = HTTPResponseHead(
            version: line.version, status: line.status,
            reason: ASCII.string(bytes, line.reason.lowerBound, line.reason.upperBound), headers: headers)
        if line.status < 200, line.status != 101 { return (head, .none) }
        let framing = try MessageFraming.response(
            status: line.status, version: line.version, method: method, fields: fields, headers: headers)
        return (head, framing)
    }
}

/// FIFO of the methods of requests awaiting a response; amortised O(1) without Foundation's Deque.
struct MethodQueue: Sendable {
    private var items: [MethodKind] = []
    private var headIndex = 0

    var count: Int { items.count - headIndex }
    var first: MethodKind? { headIndex < items.count ? items[headIndex] : nil }

    mutating func append(_ kind: MethodKind) {
        if headIndex > 0, headIndex * 2 >= items.count {
            items.removeSubrange(0..<headIndex)
            headIndex = 0
        }
        items.append(kind)
    }

    mutating func removeFirst() {
        precondition(headIndex < items.count, "removeFirst on an empty queue")
        headIndex += 1
        if headIndex == items.count {
            items.removeAll(keepingCapacity: true)
            headIndex = 0
        }
    }
}
