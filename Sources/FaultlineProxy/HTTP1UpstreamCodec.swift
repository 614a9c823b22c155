public import FaultlineFlow
public import FaultlineHTTP1

/// A flow's upstream over an HTTP/1.1 connection (pooled or fresh), with no I/O: it encodes what
/// the flow core sends (request line, `Host`, framing fields, `Via`) and decodes the response
/// into flow events. `UpstreamCodec` keeps what the flow sends until the connection is there and
/// makes this codec once it is (`didConnect` first).
///
/// It also knows when the one retry HTTP/1.1 allows applies: a pooled connection that the
/// upstream had closed before any response byte may be replaced once by a fresh one for a
/// request without a body (RFC 9112 §9.3.1).
public struct HTTP1UpstreamCodec {
    /// What the upstream said, for the flow core.
    public enum Event {
        case interim(HTTPResponseHead)
        case head(HTTPResponseHead, FlowBodyLength)
        case body(ArraySlice<UInt8>)
        case end(HTTPHeaders?)
        /// The response cannot be decoded.
        case malformed(HTTP1Error)
    }

    private let via: ViaField?
    private var decoder: HTTP1ResponseDecoder
    private var head: OutboundRequest?
    private var framing = BodyFraming.none
    /// The connection carrying the request.
    public private(set) var connection: UpstreamConnectionInfo?
    private var requestEnded = false
    private var receivedBytes = false
    private var responseHead: HTTPResponseHead?
    private var responseEnded = false

    public init(limits: HTTP1Limits, via: ViaField?) {
        self.via = via
        self.decoder = HTTP1ResponseDecoder(limits: limits)
    }

    /// The request head sent, once there is one.
    public var request: OutboundRequest? { head }

    /// The encoded request head (origin-form target, `Host` first, hop-by-hop fields removed per
    /// RFC 9110 §7.6.1, framing fields from the body length, `Via` per RFC 9110 §7.6.3).
    public mutating func sendHead(_ request: OutboundRequest) -> [UInt8] {
        head = request
        decoder.expectResponse(toMethod: request.method)
        // Host, the forwarded fields, a framing field and Via; Upgrade's fields grow it if need be.
        var fields = HTTPHeaders(minimumCapacity: request.headers.count + 3)
        fields.add(name: "Host", value: request.authority)
        for field in HopByHopHeaders.removing(from: request.headers) where !field.hasName("host") {
            fields.append(field)
        }
        switch request.body {
        case .known(let length):
            framing = .contentLength(length)
            fields.add(name: "Content-Length", value: String(length))
        case .unknown:
            framing = .chunked
            fields.add(name: "Transfer-Encoding", value: "chunked")
        case .none:
            framing = .none
        }
        if request.upgrade {
            fields.add(name: "Connection", value: "Upgrade")
            for value in request.headers.values(name: "upgrade") { fields.add(name: "Upgrade", value: value) }
        }
        if let via { fields.add(name: "Via", value: via.value(receivedProtocol: request.receivedProtocol)) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        HTTP1Encoder.encode(
            HTTPRequestHead(method: request.method, target: request.target, version: .http1_1, headers: fields),
            into: &bytes)
        return bytes
    }

    public mutating func sendBody(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        if case .chunked = framing {
            var encoded: [UInt8] = []
            encoded.reserveCapacity(bytes.count + 16)
            HTTP1Encoder.encodeChunk(bytes, into: &encoded)
            return encoded
        }
        return Array(bytes)
    }

    public mutating func sendEnd(trailers: HTTPHeaders?) -> [UInt8] {
        requestEnded = true
        guard case .chunked = framing else { return [] }
        var encoded: [UInt8] = []
        HTTP1Encoder.encodeLastChunk(trailers: trailers, into: &encoded)
        return encoded
    }

    /// The connection the request goes on; call before sending anything.
    public mutating func didConnect(_ info: UpstreamConnectionInfo) {
        connection = info
    }

    /// Upstream bytes; read the events with `nextEvent`.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        receivedBytes = true
        decoder.receive(bytes)
    }

    public mutating func receiveEOF() {
        decoder.receiveEOF()
    }

    public mutating func nextEvent() -> Event? {
        guard !responseEnded else { return nil }
        do {
            guard let event = try decoder.nextEvent() else { return nil }
            switch event {
            case .interim(let head): return .interim(head)
            case .head(let head):
                responseHead = head
                return .head(head, Self.length(of: decoder.framing))
            case .body(let bytes): return .body(bytes)
            case .end(let trailers):
                responseEnded = true
                return .end(trailers)
            }
        } catch {
            return .malformed(error)
        }
    }

    private static func length(of framing: BodyFraming) -> FlowBodyLength {
        switch framing {
        case .none, .tunnel: return .none
        case .contentLength(let length): return .known(length)
        case .chunked, .closeDelimited: return .unknown
        }
    }

    /// True when the upstream closed a pooled connection before answering a request without a
    /// body: send it again on a fresh connection (`UpstreamCodec.restartForRetry`).
    public var mayRetryOnFreshConnection: Bool {
        (connection?.reused ?? false) && !receivedBytes && requestEnded && framing == .none && responseHead == nil
    }

    /// True when the connection can carry another request: the response ended cleanly, the
    /// upstream keeps alive and nothing follows the response.
    public var isReusable: Bool {
        guard responseEnded, requestEnded, let responseHead else { return false }
        return responseHead.keepsConnectionOpen && decoder.bufferedByteCount == 0 && decoder.framing != .closeDelimited
            && !decoder.sawEOF
    }

    /// The response ended; what the upstream does next does not concern the flow.
    public var responseComplete: Bool { responseEnded }

    /// The response started (a head arrived), so a failure can no longer be answered with a status.
    public var responseStarted: Bool { responseHead != nil }

    /// What the flow's host asks about the upstream, in one small value.
    public struct Status: Sendable {
        public var isReusable: Bool
        public var responseComplete: Bool
        public var responseStarted: Bool
        public var mayRetryOnFreshConnection: Bool
    }

    public var status: Status {
        Status(
            isReusable: isReusable, responseComplete: responseComplete, responseStarted: responseStarted,
            mayRetryOnFreshConnection: mayRetryOnFreshConnection)
    }

    /// The bytes after a 101 (the new protocol's first bytes), when the connection becomes a tunnel.
    public mutating func takeBufferedBytes() -> [UInt8] { decoder.takeBufferedBytes() }
}
