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

    private enum Framing {
        case waiting([Sent])
        case http1(HTTP1UpstreamCodec)
        case http2(HTTP2UpstreamCodec)
    }

    private let via: String?
    private let limits: HTTP1Limits
    private var framing = Framing.waiting([])
    /// The connection carrying the request, once there is one.
    public private(set) var connection: UpstreamConnectionInfo?

    public init(limits: HTTP1Limits, via: String?) {
        self.via = via
        self.limits = limits
    }

    /// True once the connection speaks HTTP/2.
    public var isHTTP2: Bool {
        if case .http2 = framing { return true }
        return false
    }

    public mutating func sendHead(_ request: OutboundRequest) -> [UInt8] {
        if keep(.head(request)) { return [] }
        precondition(!isHTTP2, "a request head after the stream started")
        return http1 { $0.sendHead(request) } ?? []
    }

    public mutating func sendBody(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        if keep(.body(bytes)) { return [] }
        return http1 { $0.sendBody(bytes) }
            ?? http2 {
                $0.sendBody(bytes)
                return $0.takeOutput()
            } ?? []
    }

    public mutating func sendEnd(trailers: HTTPHeaders?) -> [UInt8] {
        if keep(.end(trailers)) { return [] }
        return http1 { $0.sendEnd(trailers: trailers) }
            ?? http2 {
                $0.sendEnd(trailers: trailers)
                return $0.takeOutput()
            } ?? []
    }

    /// Keeps what the flow sent while the connection is not there yet; false once it is.
    private mutating func keep(_ step: Sent) -> Bool {
        guard case .waiting(var sent) = framing else { return false }
        framing = .waiting([])
        sent.append(step)
        framing = .waiting(sent)
        return true
    }

    // The codecs are taken out of `framing` while they work, so the enum holds no second
    // reference to their buffers (which would then be copied on every write).

    private mutating func http1<R>(_ body: (inout HTTP1UpstreamCodec) -> R) -> R? {
        guard case .http1(var codec) = framing else { return nil }
        framing = .waiting([])
        defer { framing = .http1(codec) }
        return body(&codec)
    }

    private mutating func http2<R>(_ body: (inout HTTP2UpstreamCodec) -> R) -> R? {
        guard case .http2(var codec) = framing else { return nil }
        framing = .waiting([])
        defer { framing = .http2(codec) }
        return body(&codec)
    }

    /// The connection is there: picks the framing it negotiated and returns what to write first
    /// (the request so far; on a new HTTP/2 connection the preface before it). A connection that
    /// negotiated `h2` without a session to go with it fails the exchange (`nextEvent`).
    public mutating func didConnect(_ info: UpstreamConnectionInfo) -> [UInt8] {
        guard case .waiting(let sent) = framing else { return [] }
        connection = info
        if info.applicationProtocol == "h2" {
            return startHTTP2(info, replaying: sent)
        }
        var codec = HTTP1UpstreamCodec(limits: limits, via: via)
        var bytes = codec.didConnect(info)
        for step in sent {
            switch step {
            case .head(let request): bytes += codec.sendHead(request)
            case .body(let body): bytes += codec.sendBody(body)
            case .end(let trailers): bytes += codec.sendEnd(trailers: trailers)
            }
        }
        framing = .http1(codec)
        return bytes
    }

    private mutating func startHTTP2(_ info: UpstreamConnectionInfo, replaying sent: [Sent]) -> [UInt8] {
        guard let session = info.state as? HTTP2UpstreamConnection, case .head(let request) = sent.first else {
            framing = .http1(HTTP1UpstreamCodec(limits: limits, via: via))
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
        framing = .http2(codec)
        return bytes
    }

    /// A failure found while connecting, reported by the next `nextEvent`.
    private var pendingFailure: (code: String, message: String)?

    /// Upstream bytes; read the events with `nextEvent`, then write `takeOutput`.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        if http1({ $0.receive(bytes) }) == nil { _ = http2 { $0.receive(bytes) } }
    }

    /// What receiving asks to send back (HTTP/2: SETTINGS acknowledgements, WINDOW_UPDATE,
    /// request DATA a window update let out). HTTP/1.1 never answers by itself.
    public mutating func takeOutput() -> [UInt8] {
        http2 { $0.takeOutput() } ?? []
    }

    public mutating func receiveEOF() {
        if http1({ $0.receiveEOF() }) == nil { _ = http2 { $0.receiveEOF() } }
    }

    public mutating func nextEvent() -> Event? {
        if let failure = pendingFailure {
            pendingFailure = nil
            return .broke(code: failure.code, message: failure.message)
        }
        if let event = http1({ $0.nextEvent() }) {
            switch event {
            case .interim(let head): return .interim(head)
            case .head(let head, let length): return .head(head, length)
            case .body(let bytes): return .body(bytes)
            case .end(let trailers): return .end(trailers)
            case .malformed(let error): return .broke(code: error.code, message: error.description)
            case nil: return nil
            }
        }
        return http2 { $0.nextEvent() } ?? nil
    }

    /// Request bytes waiting: for the connection, or (HTTP/2) for the upstream's window.
    public var pendingByteCount: Int {
        switch framing {
        case .waiting(let sent):
            return sent.reduce(0) { total, step in
                if case .body(let bytes) = step { return total + bytes.count }
                return total
            }
        case .http1(let codec): return codec.pendingByteCount
        case .http2(let codec): return codec.pendingByteCount
        }
    }

    public var status: HTTP1UpstreamCodec.Status {
        switch framing {
        case .waiting:
            return HTTP1UpstreamCodec.Status(
                isReusable: false, responseComplete: false, responseStarted: false, mayRetryOnFreshConnection: false)
        case .http1(let codec):
            return codec.status
        case .http2(let codec):
            return HTTP1UpstreamCodec.Status(
                isReusable: codec.isReusable, responseComplete: codec.responseEnded,
                responseStarted: codec.responseStarted,
                // Like HTTP/1.1 (RFC 9112 §9.3.1): a pooled connection gone before any frame
                // came back, for a request without a body.
                mayRetryOnFreshConnection: (connection?.reused ?? false) && !codec.receivedBytes && codec.requestEnded
                    && !codec.responseStarted && codec.hasNoBody)
        }
    }

    /// Starts over for a fresh connection: the head and end again, kept until `didConnect`.
    public mutating func restartForRetry() {
        let request: OutboundRequest?
        switch framing {
        case .waiting: return
        case .http1(let codec): request = codec.request
        case .http2(let codec): request = codec.request
        }
        guard let request else { return }
        connection = nil
        framing = .waiting([.head(request), .end(nil)])
    }

    /// The bytes after a 101 (the new protocol's first bytes), when the connection becomes a tunnel.
    public mutating func takeBufferedBytes() -> [UInt8] {
        http1 { $0.takeBufferedBytes() } ?? []
    }
}
