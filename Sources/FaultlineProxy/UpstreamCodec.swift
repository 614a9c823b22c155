public import FaultlineFlow
public import FaultlineHTTP1

/// A flow's upstream, whatever the connection speaks: what the flow core sends is kept until the
/// connection is there, then handed to the framing it negotiated — HTTP/1.1
/// (`HTTP1UpstreamCodec`) or, when TLS picked `h2` by ALPN, a stream of the connection's HTTP/2
/// session (`HTTP2UpstreamCodec`). No I/O.
public struct UpstreamCodec {
    /// What the upstream said, for the flow core.
    public enum Event {
        case interim(HTTPResponseHead)
        case head(HTTPResponseHead, FlowBodyLength)
        case body(ArraySlice<UInt8>)
        case end(HTTPHeaders?)
        /// The response cannot be decoded, or the upstream broke off the exchange.
        case broke(code: String, message: String)
    }

    /// What the flow core sent before the connection was there.
    private enum Sent {
        case head(OutboundRequest)
        case body(ArraySlice<UInt8>)
        case end(HTTPHeaders?)
    }

    private let via: ViaField?
    private let limits: HTTP1Limits
    // Three optionals rather than one enum: each is read and changed in place (an enum's payload
    // is copied out to be looked at, the HTTP/1.1 codec's buffers with it, on every
    // `pendingByteCount` the driver asks for). Exactly one is set.
    /// What the flow sent before the connection was there; nil once it is.
    private var waiting: [Sent]? = []
    private var http1: HTTP1UpstreamCodec?
    private var http2: HTTP2UpstreamCodec?
    /// A failure found while connecting, reported by the next `nextEvent`.
    private var pendingFailure: (code: String, message: String)?
    /// The connection carrying the request, once there is one.
    public private(set) var connection: UpstreamConnectionInfo?

    public init(limits: HTTP1Limits, via: ViaField?) {
        self.via = via
        self.limits = limits
    }

    /// True once the connection speaks HTTP/2.
    public var isHTTP2: Bool { http2 != nil }

    public mutating func sendHead(_ request: OutboundRequest) -> [UInt8] {
        if waiting != nil {
            waiting!.append(.head(request))
            return []
        }
        precondition(http2 == nil, "a request head after the stream started")
        return http1?.sendHead(request) ?? []
    }

    public mutating func sendBody(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        if waiting != nil {
            waiting!.append(.body(bytes))
            return []
        }
        if http1 != nil { return http1!.sendBody(bytes) }
        http2?.sendBody(bytes)
        return takeOutput()
    }

    public mutating func sendEnd(trailers: HTTPHeaders?) -> [UInt8] {
        if waiting != nil {
            waiting!.append(.end(trailers))
            return []
        }
        if http1 != nil { return http1!.sendEnd(trailers: trailers) }
        http2?.sendEnd(trailers: trailers)
        return takeOutput()
    }

    /// The connection is there: picks the framing it negotiated and returns what to write first
    /// (the request so far; on a new HTTP/2 connection the preface before it). A connection that
    /// negotiated `h2` without a session to go with it fails the exchange (`nextEvent`).
    public mutating func didConnect(_ info: UpstreamConnectionInfo) -> [UInt8] {
        guard let sent = waiting else { return [] }
        waiting = nil
        connection = info
        if info.applicationProtocol == "h2" {
            return startHTTP2(info, replaying: sent)
        }
        var codec = HTTP1UpstreamCodec(limits: limits, via: via)
        codec.didConnect(info)
        var bytes: [UInt8] = []
        for step in sent {
            switch step {
            case .head(let request): bytes += codec.sendHead(request)
            case .body(let body): bytes += codec.sendBody(body)
            case .end(let trailers): bytes += codec.sendEnd(trailers: trailers)
            }
        }
        http1 = codec
        return bytes
    }

    private mutating func startHTTP2(_ info: UpstreamConnectionInfo, replaying sent: [Sent]) -> [UInt8] {
        guard let session = info.state as? HTTP2UpstreamConnection, case .head(let request) = sent.first else {
            http1 = HTTP1UpstreamCodec(limits: limits, via: via)
            pendingFailure = (
                "upstream-http2-unavailable", "the upstream negotiated h2 but no HTTP/2 session could be made for it"
            )
            return []
        }
        var codec = HTTP2UpstreamCodec(connection: session, request: request, via: via)
        for step in sent.dropFirst() {
            switch step {
            case .head: break
            case .body(let body): codec.sendBody(body)
            case .end(let trailers): codec.sendEnd(trailers: trailers)
            }
        }
        let bytes = codec.takeOutput()
        http2 = codec
        return bytes
    }

    /// Upstream bytes; read the events with `nextEvent`, then write `takeOutput`.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        http1?.receive(bytes)
        http2?.receive(bytes)
    }

    /// What receiving asks to send back (HTTP/2: SETTINGS acknowledgements, WINDOW_UPDATE,
    /// request DATA a window update let out). HTTP/1.1 never answers by itself.
    public mutating func takeOutput() -> [UInt8] {
        http2?.takeOutput() ?? []
    }

    public mutating func receiveEOF() {
        http1?.receiveEOF()
        http2?.receiveEOF()
    }

    public mutating func nextEvent() -> Event? {
        if let failure = pendingFailure {
            pendingFailure = nil
            return .broke(code: failure.code, message: failure.message)
        }
        guard http1 != nil else { return http2?.nextEvent() }
        switch http1!.nextEvent() {
        case .interim(let head): return .interim(head)
        case .head(let head, let length): return .head(head, length)
        case .body(let bytes): return .body(bytes)
        case .end(let trailers): return .end(trailers)
        case .malformed(let error): return .broke(code: error.code, message: error.description)
        case nil: return nil
        }
    }

    /// Request bytes waiting: for the connection, or (HTTP/2) for the upstream's window.
    public var pendingByteCount: Int {
        if let waiting {
            return waiting.reduce(0) { total, step in
                if case .body(let bytes) = step { return total + bytes.count }
                return total
            }
        }
        // HTTP/1.1 bytes go straight to the socket, whose own backlog the driver watches.
        return http2?.pendingByteCount ?? 0
    }

    public var status: HTTP1UpstreamCodec.Status {
        if let status = http1?.status { return status }
        guard let http2 else {
            return HTTP1UpstreamCodec.Status(
                isReusable: false, responseComplete: false, responseStarted: false, mayRetryOnFreshConnection: false)
        }
        return HTTP1UpstreamCodec.Status(
            isReusable: http2.isReusable, responseComplete: http2.responseEnded, responseStarted: http2.responseStarted,
            // Like HTTP/1.1 (RFC 9112 §9.3.1): a pooled connection gone before any frame came
            // back, for a request without a body.
            mayRetryOnFreshConnection: (connection?.reused ?? false) && !http2.receivedBytes && http2.requestEnded
                && !http2.responseStarted && http2.hasNoBody)
    }

    /// Starts over for a fresh connection: the head and end again, kept until `didConnect`.
    public mutating func restartForRetry() {
        guard let request = http1?.request ?? http2?.request else { return }
        http1 = nil
        http2 = nil
        connection = nil
        waiting = [.head(request), .end(nil)]
    }

    /// The bytes after a 101 (the new protocol's first bytes), when the connection becomes a tunnel.
    public mutating func takeBufferedBytes() -> [UInt8] {
        http1?.takeBufferedBytes() ?? []
    }
}
