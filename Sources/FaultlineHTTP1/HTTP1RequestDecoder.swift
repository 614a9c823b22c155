/// Decodes the requests a client sends on one connection, sans I/O (RFC 9112).
///
/// Feed bytes with ``receive(_:)-(UnsafeRawBufferPointer)`` as they arrive and call ``nextEvent()``
/// until it returns nil; call ``receiveEOF()`` when the client closes its side. Each request comes
/// out as `.head`, `.body`…, `.end`; the decoder then goes on with the next request in its buffer
/// (pipelining) whenever you call ``nextEvent()`` again, so you decide when to read the next one.
///
/// Theory of operation: ``HTTP1MessageDecoder`` does the work (see there); this decoder's role
/// parses the request-line, checks `Host`, and enters the tunnel after a CONNECT request.
public struct HTTP1RequestDecoder: Sendable {
    private var decoder: HTTP1MessageDecoder<RequestDecoderRole>

    /// The framing of the request being decoded, valid from its `.head` on. It is `.none` for a
    /// CONNECT request and becomes `.tunnel` after that request's `.end`.
    public var framing: BodyFraming { decoder.framing }

    /// Whether ``receiveEOF()`` was called.
    public var sawEOF: Bool { decoder.sawEOF }

    /// A decoder for a new connection.
    public init(limits: HTTP1Limits = .default) {
        decoder = HTTP1MessageDecoder(limits: limits, role: RequestDecoderRole())
    }

    /// Appends bytes received from the client. Bytes received after ``receiveEOF()`` or after an
    /// error are dropped.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        decoder.receive(bytes)
    }

    /// Appends bytes received from the client (see ``receive(_:)-(UnsafeRawBufferPointer)``).
    public mutating func receive(_ bytes: some Sequence<UInt8>) {
        decoder.receive(bytes)
    }

    /// Records that the client closed its sending side: a message cut short now throws
    /// ``HTTP1Error/incompleteMessage``; at a message boundary ``nextEvent()`` returns nil.
    public mutating func receiveEOF() {
        decoder.receiveEOF()
    }

    /// Bytes received and not yet decoded.
    public var bufferedByteCount: Int { decoder.bufferedByteCount }

    /// True when every request whose `.head` was returned has also returned its `.end` (bytes of
    /// the next head may be buffered, see ``bufferedByteCount``). False in a tunnel and after an error.
    public var isAtMessageBoundary: Bool { decoder.isReadingHead }

    /// Hands over the undecoded bytes and forgets them: after a CONNECT request (or an accepted
    /// upgrade) they belong to the tunnel.
    public mutating func takeBufferedBytes() -> [UInt8] {
        decoder.takeBufferedBytes()
    }

    /// Allocated size of the internal buffer, for memory-bound tests.
    var bufferCapacity: Int { decoder.bufferCapacity }

    /// Gives back the storage of the input buffer when no byte waits in it: a keep-alive
    /// connection between requests then holds none (the driver calls it on idle connections
    /// every few seconds, not per request, where the next request would allocate it again).
    public mutating func releaseIdleStorage() {
        decoder.releaseIdleStorage()
    }

    /// Decodes the next event from the buffered bytes. Returns nil when more bytes are needed, in a
    /// tunnel, or at EOF on a message boundary. Throws the client's protocol error, with the status
    /// to answer; after an error every call throws that same error.
    public mutating func nextEvent() throws(HTTP1Error) -> HTTP1RequestEvent? {
        try decoder.nextEvent()
    }
}

/// The request side of ``HTTP1MessageDecoder``: request-line, `Host` checks, CONNECT's tunnel.
struct RequestDecoderRole: HTTP1DecoderRole {
    /// The request-line of the head being scanned.
    struct PendingRequestLine: Sendable {
        var method: String
        var kind: MethodKind
        var target: String
        var version: HTTPVersion
    }

    static func headRules(_ limits: HTTP1Limits) -> HeadScanner.Rules { .request(limits) }

    /// Any request may start at any time (pipelining).
    func nextHeadContext(hasBytes: Bool) -> Void? { () }

    func didDecodeHead(_ head: HTTPRequestHead) -> (event: HTTP1RequestEvent, isFinal: Bool) {
        (.head(head), true)
    }

    static func bodyEvent(_ bytes: ArraySlice<UInt8>) -> HTTP1RequestEvent { .body(bytes) }
    static func endEvent(trailers: HTTPHeaders?) -> HTTP1RequestEvent { .end(trailers: trailers) }
    static func reported(_ error: HTTP1Error) -> HTTP1Error { error }

    static func parseStartLine(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>
    ) throws(HTTP1Error) -> PendingRequestLine {
        let line = try StartLineParser.parseRequestLine(bytes, range)
        let kind = MethodKind(bytes, line.method.lowerBound, line.method.upperBound)
        // RFC 9112 §3.2: the target's form must fit the method.
        _ = try TargetParser.parse(bytes, line.target.lowerBound, line.target.upperBound, method: kind)
        return PendingRequestLine(
            method: ASCII.string(bytes, line.method.lowerBound, line.method.upperBound), kind: kind,
            target: ASCII.string(bytes, line.target.lowerBound, line.target.upperBound), version: line.version)
    }

    static func buildHead(
        _ line: PendingRequestLine, _ context: Void, _ bytes: UnsafeBufferPointer<UInt8>, _ fieldsStart: Int,
        _ end: Int, fieldCount: Int
    ) throws(HTTP1Error) -> (head: HTTPRequestHead, framing: BodyFraming, tunnelAfterBody: Bool) {
        var fields = FramingFields()
        let headers = try FieldParser.parse(bytes, fieldsStart, end, expectedCount: fieldCount, framing: &fields)
        // RFC 9112 §3.2: 400 for an HTTP/1.1 request without Host, for several Host fields, and for
        // an invalid Host value. An empty Host is allowed (a target without authority).
        if fields.hostCount > 1 { throw .duplicateHost }
        if let host = fields.hostValue {
            if !host.isEmpty,
                TargetParser.parseAuthority(bytes, host.lowerBound, host.upperBound, portRequired: false) == nil
            {
                throw .invalidHost
            }
        } else if line.version == .http1_1 {
            throw .missingHost
        }
        let framing = try MessageFraming.request(
            method: line.kind, version: line.version, fields: fields, headers: headers)
        let head = HTTPRequestHead(method: line.method, target: line.target, version: line.version, headers: headers)
        // RFC 9110 §9.3.6: after CONNECT the connection carries the tunnel, not HTTP.
        return (head, framing, line.kind == .connect)
    }
}
