/// What decoding requests and decoding responses do differently; ``HTTP1MessageDecoder`` does the rest.
///
/// The parsing hooks are static and take everything they read as arguments, so the decoder can call
/// them inside ``InputBuffer/withReadableBytes(_:)`` without capturing itself.
protocol HTTP1DecoderRole: Sendable {
    /// A parsed start line, kept from its line end until the head is complete.
    associatedtype StartLine: Sendable
    associatedtype Head: Sendable
    associatedtype Event: Sendable
    /// What building a head needs besides its bytes: for a response, the method of its request.
    associatedtype HeadContext

    static func headRules(_ limits: HTTP1Limits) -> HeadScanner.Rules

    /// What the next head is decoded with, or nil when no message may start yet. `hasBytes` tells
    /// whether any byte of it has arrived.
    func nextHeadContext(hasBytes: Bool) throws(HTTP1Error) -> HeadContext?

    static func parseStartLine(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws(HTTP1Error) -> StartLine

    /// The head whose field lines are at `fieldsStart..<end`, how its body is framed, and whether the
    /// connection becomes a tunnel after that body.
    static func buildHead(
        _ line: StartLine, _ context: HeadContext, _ bytes: UnsafeBufferPointer<UInt8>, _ fieldsStart: Int,
        _ end: Int, fieldCount: Int
    ) throws(HTTP1Error) -> (head: Head, framing: BodyFraming, tunnelAfterBody: Bool)

    /// Records a decoded head and returns its event; `isFinal` is false for an interim response,
    /// after which the next head is decoded instead of a body.
    mutating func didDecodeHead(_ head: Head) -> (event: Event, isFinal: Bool)

    static func bodyEvent(_ bytes: ArraySlice<UInt8>) -> Event
    static func endEvent(trailers: HTTPHeaders?) -> Event

    /// The error the decoder reports for `error` (a response's errors all answer 502).
    static func reported(_ error: HTTP1Error) -> HTTP1Error
}

/// The one HTTP/1 message decoder under ``HTTP1RequestDecoder`` and ``HTTP1ResponseDecoder``: the
/// buffer, EOF, the head scan, the body steps and the state machine; `Role` parses the start line,
/// builds the head and names the events.
///
/// Theory of operation: the state is `head` (scanning for the end of the next head), `body`
/// (a ``BodyDecoder`` hands out body bytes), `tunnel` (nothing more is decoded,
/// ``takeBufferedBytes()`` hands over the rest) or `failed` (the first error is thrown again
/// forever). The start line is parsed as soon as its line ends, so garbage such as a TLS
/// ClientHello is refused before the limits fill up; field lines are parsed once the head is
/// complete. Generic rather than a protocol value, so each decoder gets its own specialised copy
/// and the hot path stays free of dynamic dispatch and allocation.
struct HTTP1MessageDecoder<Role: HTTP1DecoderRole>: Sendable {
    private enum State: Sendable {
        case head
        case body
        case tunnel
        case failed(HTTP1Error)
    }

    private let limits: HTTP1Limits
    /// Made from `limits` where they are used rather than stored: every connection keeps a
    /// decoder, and two stored copies cost each idle connection 64 bytes (Benchmarks/idle).
    private var headRules: HeadScanner.Rules { Role.headRules(limits) }
    private var trailerRules: HeadScanner.Rules { .trailers(limits) }
    private var state = State.head
    private var buffer = InputBuffer()
    private var scanner = HeadScanner()
    private var startLine: Role.StartLine?
    private var body = BodyDecoder(framing: .none)
    private var tunnelAfterBody = false
    /// The role's own state (a response decoder's queue of methods).
    var role: Role

    /// The framing of the message being decoded, valid from its head on; `.tunnel` once the
    /// connection carries a tunnel.
    private(set) var framing = BodyFraming.none
    private(set) var sawEOF = false

    init(limits: HTTP1Limits, role: Role) {
        self.limits = limits
        self.role = role
    }

    /// Bytes received after EOF or after an error are dropped.
    mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        guard accepts else { return }
        buffer.append(bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// Always inlined: generic over the caller's sequence, it would otherwise not be specialised
    /// for `Role` and reach its fields through type metadata on every call.
    @inline(__always)
    mutating func receive(_ bytes: some Sequence<UInt8>) {
        guard accepts else { return }
        buffer.append(contentsOf: bytes)
    }

    private var accepts: Bool {
        if sawEOF { return false }
        if case .failed = state { return false }
        return true
    }

    mutating func receiveEOF() {
        sawEOF = true
    }

    var bufferedByteCount: Int { buffer.readableCount }

    /// True between messages (or between an interim response and the next head): false in a body,
    /// in a tunnel and after an error.
    var isReadingHead: Bool {
        if case .head = state { return true }
        return false
    }

    mutating func takeBufferedBytes() -> [UInt8] {
        buffer.takeAll()
    }

    var bufferCapacity: Int { buffer.capacity }

    /// Gives back the input buffer's storage if nothing waits in it.
    mutating func releaseIdleStorage() {
        buffer.releaseStorageIfEmpty()
    }

    mutating func nextEvent() throws(HTTP1Error) -> Role.Event? {
        do throws(HTTP1Error) {
            switch state {
            case .head: return try decodeHead()
            case .body: return try decodeBody()
            case .tunnel: return nil
            case .failed(let error): throw error
            }
        } catch {
            let reported = Role.reported(error)
            state = .failed(reported)
            throw reported
        }
    }

    private mutating func decodeHead() throws(HTTP1Error) -> Role.Event? {
        guard let context = try role.nextHeadContext(hasBytes: buffer.readableCount > 0) else { return nil }
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
                startLine = try buffer.withReadableBytes { (bytes) throws(HTTP1Error) in
                    try Role.parseStartLine(bytes, range)
                }
            case .complete(let length):
                guard let startLine else { preconditionFailure("head complete before its start line") }
                let fieldCount = scanner.fieldCount
                let fieldsStart = scanner.fieldsStart
                let built = try buffer.withReadableBytes { (bytes) throws(HTTP1Error) in
                    try Role.buildHead(startLine, context, bytes, fieldsStart, length, fieldCount: fieldCount)
                }
                buffer.consume(length)
                self.scanner = HeadScanner()
                self.startLine = nil
                let (event, isFinal) = role.didDecodeHead(built.head)
                if isFinal {
                    framing = built.framing
                    body = BodyDecoder(framing: built.framing)
                    tunnelAfterBody = built.tunnelAfterBody
                    state = .body
                }
                return event
            }
        }
    }

    private mutating func decodeBody() throws(HTTP1Error) -> Role.Event? {
        switch try body.next(&buffer, atEOF: sawEOF, limits: limits, trailerRules: trailerRules) {
        case .needMore:
            return nil
        case .data(let bytes):
            return Role.bodyEvent(bytes)
        case .end(let trailers):
            if tunnelAfterBody {
                // The role said so (CONNECT, 101): the connection now carries the tunnel, not HTTP.
                state = .tunnel
                framing = .tunnel
            } else {
                state = .head
            }
            return Role.endEvent(trailers: trailers)
        }
    }
}
