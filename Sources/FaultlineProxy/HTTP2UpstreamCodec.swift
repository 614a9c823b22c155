import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineHTTP2

/// A flow's request as one stream of an upstream HTTP/2 connection, with no I/O: the flow
/// core's HTTP/1-shaped request becomes a header block and DATA, and the stream's frames become
/// flow events again.
///
/// The translation, both ways (RFC 9113 §8): `Host` becomes `:authority` (§8.3.1) and the
/// connection-specific fields go (§8.2.2; `te: trailers` stays, gRPC needs it); the response's
/// `:status` becomes the status line with its usual reason; a body is as long as its
/// `content-length` says or runs to END_STREAM — never HTTP/1 framing; trailers stay trailers.
/// Response DATA is credited back to the upstream as soon as it is read: the driver stops
/// reading the socket when the flow cannot take more, and with one stream per connection that
/// is the flow control that matters.
struct HTTP2UpstreamCodec {
    let connection: HTTP2UpstreamConnection
    let request: OutboundRequest
    private var stream: Int32?
    private var events: [UpstreamCodec.Event] = []
    private(set) var requestEnded = false
    private(set) var receivedBytes = false
    private(set) var responseStarted = false
    private(set) var responseEnded = false
    /// The stream closed with NO_ERROR after both ends were sent.
    private var closedCleanly = false
    /// A failure was reported; nothing more is.
    private var broken = false
    private var sawEOF = false

    private var session: HTTP2Connection { connection.session }

    /// Opens the stream with the request head (END_STREAM at once when there is no body).
    init(connection: HTTP2UpstreamConnection, request: OutboundRequest, via: ViaField?) {
        self.connection = connection
        self.request = request
        do {
            stream = try connection.session.startRequest(
                headers: Self.block(of: request, scheme: connection.scheme, via: via), endStream: request.body == .none)
        } catch {
            fail("upstream-refused-stream", "the upstream's HTTP/2 connection takes no new stream: \(error.message)")
        }
    }

    /// The request's header block: `:method`, `:scheme`, `:authority`, `:path`, then the
    /// forwardable fields, `content-length` from the body length and `Via` (RFC 9110 §7.6.3).
    static func block(of request: OutboundRequest, scheme: String = "https", via: ViaField?) -> [HTTP2Header] {
        var fields = HopByHopHeaders.removing(from: request.headers)
        if case .known(let length) = request.body { fields.add(name: "content-length", value: String(length)) }
        if let via { fields.add(name: "via", value: via.value(receivedProtocol: request.receivedProtocol)) }
        var block = HTTP2Headers.requestBlock(
            HTTP2Headers.Request(
                method: request.method, scheme: scheme, authority: request.authority, path: request.target,
                fields: HTTP2Headers.fields(fromHTTP1: fields)))
        if request.headers.containsToken("trailers", inField: "te") { block.append(HTTP2Header("te", "trailers")) }
        return block
    }

    mutating func sendBody(_ bytes: ArraySlice<UInt8>) {
        guard let stream, !bytes.isEmpty else { return }
        session.sendData(stream: stream, bytes, endStream: false)
    }

    mutating func sendEnd(trailers: HTTPHeaders?) {
        requestEnded = true
        guard let stream, request.body != .none else { return }
        if let trailers, !trailers.isEmpty {
            session.sendTrailers(stream: stream, headers: HTTP2Headers.fields(fromHTTP1: trailers))
        } else {
            session.sendData(stream: stream, [], endStream: true)
        }
    }

    var hasNoBody: Bool { request.body == .none }

    /// Request bytes queued for the stream and not yet sent (the upstream's window is closed).
    var pendingByteCount: Int { stream.map { session.bufferedOutboundBytes(stream: $0) } ?? 0 }

    /// Frames to write: what sending and receiving produced (the connection preface first, on a
    /// new connection).
    mutating func takeOutput() -> [UInt8] {
        let bytes = session.takeOutput()
        for event in session.takeEvents() { handle(event) }
        return bytes
    }

    mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        receivedBytes = true
        for event in session.receive(bytes) { handle(event) }
    }

    mutating func receiveEOF() {
        sawEOF = true
    }

    mutating func nextEvent() -> UpstreamCodec.Event? {
        events.isEmpty ? nil : events.removeFirst()
    }

    private mutating func handle(_ event: HTTP2Event) {
        connection.observe(event)
        switch event {
        case .headers(let id, let headers, let endStream) where id == stream:
            receivedHead(headers, endStream: endStream)
        case .data(let id, let bytes, let endStream) where id == stream:
            session.consumed(stream: id, bytes: bytes.count)
            guard responseStarted, !responseEnded else { return }
            if !bytes.isEmpty { events.append(.body(bytes[...])) }
            if endStream { end(trailers: nil) }
        case .trailers(let id, let headers) where id == stream:
            guard responseStarted, !responseEnded else { return }
            end(trailers: HTTP2Headers.http1Fields(headers))
        case .streamReset(let id, let code) where id == stream:
            fail("upstream-reset", "the upstream reset the stream (\(code))")
        case .streamError(let id, let reason) where id == stream:
            fail("upstream-protocol-error", "the upstream's stream broke HTTP/2 rules: \(reason)")
        case .streamClosed(let id, let code) where id == stream:
            closedCleanly = code == .noError && responseEnded && requestEnded
            // A GOAWAY that left the stream unprocessed closes it with REFUSED_STREAM (§6.8).
            fail("upstream-stream-closed", "the upstream closed the stream before the response ended (\(code))")
        case .connectionError(let code, let reason):
            fail("upstream-http2-error", "the upstream's HTTP/2 connection failed (\(code)): \(reason)")
        default:
            break
        }
    }

    private mutating func receivedHead(_ headers: [HTTP2Header], endStream: Bool) {
        guard !responseStarted else { return }
        let response: HTTP2Headers.Response
        do {
            response = try HTTP2Headers.response(headers)
        } catch {
            if let stream { session.reset(stream: stream, code: .protocolError) }
            fail("upstream-malformed-head", error.message)
            return
        }
        let head = HTTPResponseHead(
            version: .http2, status: response.status, reason: ErrorResponse.reasonPhrase(response.status),
            headers: HTTP2Headers.http1Fields(response.fields))
        if (100..<200).contains(response.status) {
            // 101 has no HTTP/2 form (§8.6); the other 1xx are interim heads (§8.1).
            if response.status != 101 { events.append(.interim(head)) }
            return
        }
        responseStarted = true
        events.append(.head(head, length(of: head, endStream: endStream)))
        if endStream { end(trailers: nil) }
    }

    /// What the head says about the body (RFC 9113 §8.1.1): none for HEAD, 204 and 304
    /// (RFC 9110 §6.4.1), the `content-length` when there is one, else until END_STREAM.
    private func length(of head: HTTPResponseHead, endStream: Bool) -> FlowBodyLength {
        if request.method == "HEAD" || head.status == 204 || head.status == 304 { return .none }
        if let text = head.headers.first(name: "content-length"), let length = Int64(text), length >= 0 {
            return .known(length)
        }
        return endStream ? .known(0) : .unknown
    }

    private mutating func end(trailers: HTTPHeaders?) {
        responseEnded = true
        events.append(.end(trailers))
    }

    private mutating func fail(_ code: String, _ message: String) {
        guard !broken, !responseEnded else { return }
        broken = true
        events.append(.broke(code: code, message: message))
    }

    /// The stream ended cleanly both ways and the connection can carry another stream.
    var isReusable: Bool {
        closedCleanly && !broken && !sawEOF && connection.canCarryAnotherStream
    }
}
