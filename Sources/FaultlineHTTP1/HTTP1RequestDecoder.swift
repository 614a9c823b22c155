/// Decodes the requests a client sends on one connection, sans I/O (RFC 9112).
///
/// Feed bytes with ``receive(_:)-(UnsafeRawBufferPointer)`` as they arrive and call ``nextEvent()``
/// until it returns nil; call ``receiveEOF()`` when the client closes its side. Each request comes
/// out as `.head`, `.body`…, `.end`; the decoder then goes on with the next request in its buffer
/// (pipelining) whenever you call ``nextEvent()`` again, so you decide when to read the next one.
///
/// Theory of operation: the state is `head` (scanning for the end of the next head), `body`
/// (a ``BodyDecoder`` hands out body bytes), `tunnel` (after a CONNECT request: nothing more is
/// decoded, ``takeBufferedBytes()`` hands over the rest) or `failed` (the first error is thrown
/// again forever). The request-line is parsed as soon as its line ends, so garbage such as a TLS
/// ClientHello is refused before the limits fill up; field lines are parsed once the head is complete.
public struct HTTP1RequestDecoder: Sendable {
    private enum State: Sendable {
        case head
        case body
        case tunnel
        case failed(HTTP1Error)
    }

    /// The request-line of the head being scanned.
    private struct PendingRequestLine: Sendable {
        var method: String
        var kind: MethodKind
        var target: String
        var version: HTTPVersion
    }

    private let limits: HTTP1Limits
    private let headRules: HeadScanner.Rules
    private let trailerRules: HeadScanner.Rules
    private var state = State.head
    private var buffer = InputBuffer()
    private var scanner = HeadScanner()
    private var requestLine: PendingRequestLine?
    private var body = BodyDecoder(framing: .none)
    private var tunnelAfterBody = false

    /// The framing of the request being decoded, valid from its `.head` on. It is `.none` for a
    /// CONNECT request and becomes `.tunnel` after that request's `.end`.
    public private(set) var framing = BodyFraming.none

    /// Whether ``receiveEOF()`` was called.
    public private(set) var sawEOF = false

    /// A decoder for a new connection.
    public init(limits: HTTP1Limits = .default) {
        self.limits = limits
        headRules = .request(limits)
        trailerRules = .trailers(limits)
    }

    /// Appends bytes received from the client. Bytes received after ``receiveEOF()`` or after an
    /// error are dropped.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        guard accepts else { return }
        buffer.append(bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// Appends bytes received from the client (see ``receive(_:)-(UnsafeRawBufferPointer)``).
    public mutating func receive(_ bytes: some Sequence<UInt8>) {
        guard accepts else { return }
        buffer.append(contentsOf: bytes)
    }

    private var accepts: Bool {
        if sawEOF { return false }
        if case .failed = state { return false }
        return true
    }

    /// Records that the client closed its sending side: a message cut short now throws
    /// ``HTTP1Error/incompleteMessage``; at a message boundary ``nextEvent()`` returns nil.
    public mutating func receiveEOF() {
        sawEOF = true
    }

    /// Bytes received and not yet decoded.
    public var bufferedByteCount: Int { buffer.readableCount }

    /// True when every request whose `.head` was returned has also returned its `.end` (bytes of
    /// the next head may be buffered, see ``bufferedByteCount``). False in a tunnel and after an error.
    public var isAtMessageBoundary: Bool {
        if case .head = state { return true }
        return false
    }

    /// Hands over the undecoded bytes and forgets them: after a CONNECT request (or an accepted
    /// upgrade) they belong to the tunnel.
    public mutating func takeBufferedBytes() -> [UInt8] {
        buffer.takeAll()
    }

    /// Allocated size of the internal buffer, for memory-bound tests.
    var bufferCapacity: Int { buffer.capacity }

    /// Decodes the next event from the buffered bytes. Returns nil when more bytes are needed, in a
    /// tunnel, or at EOF on a message boundary. Throws the client's protocol error, with the status
    /// to answer; after an error every call throws that same error.
    public mutating func nextEvent() throws(HTTP1Error) -> HTTP1RequestEvent? {
        do throws(HTTP1Error) {
            switch state {
            case .head: return try decodeHead()
            case .body: return try decodeBody()
            case .tunnel: return nil
            case .failed(let error): throw error
            }
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private mutating func decodeHead() throws(HTTP1Error) -> HTTP1RequestEvent? {
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
            case .emptyLeadingLine(let length):
                buffer.consume(length)
                self.scanner = HeadScanner()
            case .startLine(let range):
                requestLine = try buffer.withReadableBytes { (bytes) throws(HTTP1Error) in
                    try Self.parseRequestLine(bytes, range)
                }
            case .complete(let length):
                guard let requestLine else { preconditionFailure("head complete before its request-line") }
                let fieldCount = scanner.fieldCount
                let fieldsStart = scanner.fieldsStart
                let (head, framing) = try buffer.withReadableBytes { (bytes) throws(HTTP1Error) in
                    try Self.buildHead(requestLine, bytes, fieldsStart, length, fieldCount: fieldCount)
                }
                buffer.consume(length)
                self.scanner = HeadScanner()
                self.requestLine = nil
                self.framing = framing
                body = BodyDecoder(framing: framing)
                tunnelAfterBody = requestLine.kind == .connect
                state = .body
                return .head(head)
            }
        }
    }

    private mutating func decodeBody() throws(HTTP1Error) -> HTTP1RequestEvent? {
        switch try body.next(&buffer, atEOF: sawEOF, limits: limits, trailerRules: trailerRules) {
        case .needMore:
            return nil
        case .data(let bytes):
            return .body(bytes)
        case .end(let trailers):
            if tunnelAfterBody {
                // RFC 9110 §9.3.6: after CONNECT the connection carries the tunnel, not HTTP.
                state = .tunnel
                framing = .tunnel
            } else {
                state = .head
            }
            return .end(trailers: trailers)
        }
    }

    private static func parseRequestLine(
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

    private static func buildHead(
        _ line: PendingRequestLine, _ bytes: UnsafeBufferPointer<UInt8>, _ fieldsStart: Int, _ end: Int,
        fieldCount: Int
    ) throws(HTTP1Error) -> (HTTPRequestHead, BodyFraming) {
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
        return (head, framing)
    }
}
