/// Decodes the responses an upstream server sends on one connection, sans I/O (RFC 9112).
///
/// Call ``expectResponse(toMethod:)`` once per request sent, in order, before its response is
/// decoded: the method decides whether a body follows (HEAD, CONNECT). Feed bytes with
/// ``receive(_:)-(UnsafeRawBufferPointer)``, call ``nextEvent()`` until it returns nil, and call
/// ``receiveEOF()`` when the server closes (which ends a close-delimited body). Each response is
/// `.interim`… (1xx other than 101), `.head`, `.body`…, `.end`. Every error has status 502.
///
/// Theory of operation: ``HTTP1MessageDecoder`` does the work (see there); this decoder's role keeps
/// a FIFO of the methods of the requests awaiting a response. An interim response leaves its
/// request at the front of the queue; a final one removes it. After 101, or a 2xx to CONNECT, the
/// decoder emits `.end` and enters the tunnel state, where it decodes nothing and
/// ``takeBufferedBytes()`` hands over what follows.
public struct HTTP1ResponseDecoder: Sendable {
    private var decoder: HTTP1MessageDecoder<ResponseDecoderRole>

    /// The framing of the response being decoded, valid from its `.head` on (`.tunnel` for 101
    /// and for a 2xx to CONNECT).
    public var framing: BodyFraming { decoder.framing }

    /// Whether ``receiveEOF()`` was called.
    public var sawEOF: Bool { decoder.sawEOF }

    /// A decoder for a new upstream connection.
    public init(limits: HTTP1Limits = .default) {
        decoder = HTTP1MessageDecoder(limits: limits, role: ResponseDecoderRole())
    }

    /// Announces that a request with `method` was sent, so one more response is expected. Call it
    /// once per request, in the order the requests were sent.
    public mutating func expectResponse(toMethod method: String) {
        decoder.role.pending.append(MethodKind(method))
    }

    /// Appends bytes received from the server. Bytes received after ``receiveEOF()`` or after an
    /// error are dropped.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        decoder.receive(bytes)
    }

    /// Appends bytes received from the server (see ``receive(_:)-(UnsafeRawBufferPointer)``).
    public mutating func receive(_ bytes: some Sequence<UInt8>) {
        decoder.receive(bytes)
    }

    /// Records that the server closed the connection: a close-delimited body then ends, a message
    /// cut short throws ``HTTP1Error/incompleteMessage`` (status 502), and at a message boundary
    /// ``nextEvent()`` returns nil (even if responses were still expected: check ``sawEOF``).
    public mutating func receiveEOF() {
        decoder.receiveEOF()
    }

    /// Bytes received and not yet decoded.
    public var bufferedByteCount: Int { decoder.bufferedByteCount }

    /// True when every response whose `.head` (or `.interim`) was returned has also returned its
    /// `.end`. False in a tunnel and after an error.
    public var isAtMessageBoundary: Bool { decoder.isReadingHead && !decoder.role.sawInterim }

    /// Number of responses expected and not yet fully decoded.
    public var expectedResponseCount: Int { decoder.role.pending.count }

    /// Hands over the undecoded bytes and forgets them: after 101 or a 2xx to CONNECT they belong
    /// to the tunnel.
    public mutating func takeBufferedBytes() -> [UInt8] {
        decoder.takeBufferedBytes()
    }

    /// Allocated size of the internal buffer, for memory-bound tests.
    var bufferCapacity: Int { decoder.bufferCapacity }

    /// Decodes the next event from the buffered bytes. Returns nil when more bytes are needed, in a
    /// tunnel, or at EOF on a message boundary. Throws the server's protocol error (status 502);
    /// after an error every call throws that same error.
    public mutating func nextEvent() throws(HTTP1Error) -> HTTP1ResponseEvent? {
        try decoder.nextEvent()
    }
}

/// The response side of ``HTTP1MessageDecoder``: the methods awaiting a response, status-line,
/// interim responses, 502 for every error.
struct ResponseDecoderRole: HTTP1DecoderRole {
    var pending = MethodQueue()
    var sawInterim = false

    static func headRules(_ limits: HTTP1Limits) -> HeadScanner.Rules { .response(limits) }

    /// The method of the oldest request without its final response; bytes before any request was
    /// sent are an unsolicited response.
    func nextHeadContext(hasBytes: Bool) throws(HTTP1Error) -> MethodKind? {
        guard let method = pending.first else {
            if hasBytes { throw .unsolicitedResponse }
            return nil
        }
        return method
    }

    static func parseStartLine(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>
    ) throws(HTTP1Error) -> ParsedStatusLine {
        try StartLineParser.parseStatusLine(bytes, range)
    }

    mutating func didDecodeHead(_ head: HTTPResponseHead) -> (event: HTTP1ResponseEvent, isFinal: Bool) {
        // RFC 9110 §15.2: 1xx responses (but 101) are interim; the final response follows.
        if head.status < 200, head.status != 101 {
            sawInterim = true
            return (.interim(head), false)
        }
        sawInterim = false
        pending.removeFirst()
        return (.head(head), true)
    }

    static func bodyEvent(_ bytes: ArraySlice<UInt8>) -> HTTP1ResponseEvent { .body(bytes) }
    static func endEvent(trailers: HTTPHeaders?) -> HTTP1ResponseEvent { .end(trailers: trailers) }
    static func reported(_ error: HTTP1Error) -> HTTP1Error { error.asResponseError }

    static func buildHead(
        _ line: ParsedStatusLine, _ method: MethodKind, _ bytes: UnsafeBufferPointer<UInt8>, _ fieldsStart: Int,
        _ end: Int, fieldCount: Int
    ) throws(HTTP1Error) -> (head: HTTPResponseHead, framing: BodyFraming, tunnelAfterBody: Bool) {
        var fields = FramingFields()
        let headers = try FieldParser.parse(bytes, fieldsStart, end, expectedCount: fieldCount, framing: &fields)
        let head = HTTPResponseHead(
            version: line.version, status: line.status,
            reason: ASCII.string(bytes, line.reason.lowerBound, line.reason.upperBound), headers: headers)
        if line.status < 200, line.status != 101 { return (head, .none, false) }
        let framing = try MessageFraming.response(
            status: line.status, version: line.version, method: method, fields: fields, headers: headers)
        // 101 and a 2xx to CONNECT hand the connection over (RFC 9110 §15.2.2, §9.3.6).
        return (head, framing, framing == .tunnel)
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
