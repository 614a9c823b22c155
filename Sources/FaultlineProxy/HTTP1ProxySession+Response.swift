import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineTrace

/// The client side of a flow in HTTP/1: response heads re-framed for the client, bodies encoded
/// for that framing, the connection kept or closed when the flow ends.
extension HTTP1ProxySession {
    /// 1xx responses other than 101 go to HTTP/1.1 clients only (RFC 9110 §15.2: never to HTTP/1.0).
    func sendInterim(_ head: HTTPResponseHead, _ output: inout SessionOutput) {
        guard let exchange, exchange.version == .http1_1 else { return }
        var interim = head
        interim.version = .http1_1
        interim.headers = HopByHopHeaders.removing(from: head.headers)
        var bytes: [UInt8] = []
        HTTP1Encoder.encode(interim, into: &bytes)
        output.writeToClient(bytes)
    }

    /// Bytes of request body the session reads and drops to keep a connection a rule answered.
    static let discardableBodyLimit: Int64 = 64 * 1024

    /// Sends a response head to the client, framed for it from the body length.
    mutating func sendResponseHead(
        _ head: HTTPResponseHead, length: FlowBodyLength, source: ResponseSource, _ output: inout SessionOutput
    ) {
        guard case .exchanging(var exchange) = state else { return }
        let clientIsHTTP11 = exchange.version == .http1_1
        let upgrading = exchange.kind == .upgrade && head.status == 101
        let clientFraming: BodyFraming
        var headers = ClientResponseFields.make(from: head.headers, length: length)
        switch length {
        case .none:
            clientFraming = .none
        case .known(let length):
            clientFraming = .contentLength(length)
        case .unknown:
            // Chunked cannot be sent to an HTTP/1.0 client (RFC 9112 §7): fall back to closing.
            clientFraming = clientIsHTTP11 ? .chunked : .closeDelimited
            if clientIsHTTP11 { headers.add(name: "Transfer-Encoding", value: "chunked") }
        }
        // The client connection survives only if both message framings stay intact: a request
        // body still unread is drained only after a rule's answer, and only if it is small.
        if !exchange.requestRead, !(source == .rule && Self.isDrainable(exchange.requestFraming)) {
            exchange.closeAfter = true
        }
        if source == .proxyError, !exchange.requestRead { exchange.closeAfter = true }
        if clientFraming == .closeDelimited || clientReachedEOF { exchange.closeAfter = true }
        if upgrading {
            headers.add(name: "Connection", value: "Upgrade")
            for value in head.headers.values(name: "upgrade") { headers.add(name: "Upgrade", value: value) }
        } else if exchange.closeAfter {
            headers.add(name: "Connection", value: "close")
        } else if !clientIsHTTP11 {
            headers.add(name: "Connection", value: "keep-alive")
        }
        if let via = configuration.via {
            headers.add(name: "Via", value: via.value(receivedProtocol: head.version.viaProtocol))
        }
        let clientHead = HTTPResponseHead(version: .http1_1, status: head.status, reason: head.reason, headers: headers)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        HTTP1Encoder.encode(clientHead, into: &bytes)
        output.writeToClient(bytes)
        exchange.responseFraming = clientFraming
        state = .exchanging(exchange)
    }

    private static func isDrainable(_ framing: BodyFraming) -> Bool {
        switch framing {
        case .none: return true
        case .contentLength(let length): return length <= discardableBodyLimit
        case .chunked, .closeDelimited, .tunnel: return false
        }
    }

    /// Sends response body bytes framed for the client.
    func sendResponseBody(_ bytes: ArraySlice<UInt8>, _ output: inout SessionOutput) {
        guard let framing = exchange?.responseFraming else { return }
        if case .chunked = framing {
            var encoded: [UInt8] = []
            encoded.reserveCapacity(bytes.count + 16)
            HTTP1Encoder.encodeChunk(bytes, into: &encoded)
            output.writeToClient(encoded)
        } else {
            output.writeToClient(bytes)
        }
    }

    func sendResponseEnd(trailers: HTTPHeaders?, _ output: inout SessionOutput) {
        guard case .chunked = exchange?.responseFraming else { return }
        var bytes: [UInt8] = []
        HTTP1Encoder.encodeLastChunk(trailers: trailers, into: &bytes)
        output.writeToClient(bytes)
    }

    /// A fault or a cut: the client sees its connection break.
    mutating func breakClient(_ how: ClientBreak, _ output: inout SessionOutput) {
        state = .closing
        output.append(.cancelTimer(.clientIdle))
        switch how {
        case .reset:
            output.append(.resetClient)
        case .close:
            output.append(.closeClient(afterFlush: false))
        case .closeAfterFlush:
            output.append(.closeClient(afterFlush: true))
        case .malformedBody:
            // A chunk-size line that is not hex (RFC 9112 §7.1).
            output.writeToClient(Array("zz\r\nnot a chunk\r\n".utf8))
            output.append(.closeClient(afterFlush: true))
        }
    }

    /// The flow is over: open a tunnel after a 101, or serve the next request, drain the rest of
    /// an answered request's body, or close.
    mutating func flowEnded(_ outcome: FlowOutcome, _ output: inout SessionOutput) {
        let target = flowEndpoint
        flow = nil
        if outcome == .tunnelled {
            openUpgradeTunnel(target: target, &output)
            return
        }
        upstream = nil
        if case .closing = state {
            if closeReason == nil { closeReason = Self.closeReason(outcome) }
            return
        }
        guard let exchange else { return }
        if exchange.closeAfter || (!exchange.requestRead && outcome != .answered) || outcome == .refused {
            close(&output, reason: Self.closeReason(outcome))
            return
        }
        if !exchange.requestRead {
            state = .draining(exchange)
            processClientInput(&output)
            return
        }
        exchangeDone(&output)
    }

    /// The request and its response are both done: the connection waits for the next request.
    mutating func exchangeDone(_ output: inout SessionOutput) {
        state = .idle
        output.append(.setTimer(.clientIdle, configuration.clientIdleTimeout))
        processClientInput(&output)
    }

    static func closeReason(_ outcome: FlowOutcome) -> String {
        switch outcome {
        case .finished, .tunnelled: return "connection-close"
        case .answered: return "rule-answered"
        case .failed: return "upstream-failed"
        case .refused: return "protocol-error"
        case .aborted: return "fault"
        case .upstreamBroke: return "upstream-broke"
        case .clientGone: return "client-closed"
        }
    }
}
