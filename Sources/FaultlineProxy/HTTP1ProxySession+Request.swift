import FaultlineCore
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace

extension HTTP1ProxySession {
    /// Decodes buffered client bytes as far as the current state allows.
    mutating func processClientInput(_ output: inout SessionOutput) {
        do {
            while true {
                switch state {
                case .idle:
                    guard let event = try requestDecoder.nextEvent() else {
                        if clientReachedEOF, requestDecoder.isAtMessageBoundary { close(&output, reason: "client-closed") }
                        return
                    }
                    guard case .head(let head) = event else {
                        preconditionFailure("request decoder produced \(event) before a head")
                    }
                    startExchange(head, &output)
                case .exchanging:
                    // Pipelined requests stay in the decoder until this exchange ends.
                    guard let exchange, !exchange.requestComplete else { return }
                    guard let event = try requestDecoder.nextEvent() else { return }
                    switch event {
                    case .head:
                        preconditionFailure("request decoder produced a head inside a body")
                    case .body(let bytes):
                        forwardRequestBody(bytes, &output)
                    case .end(let trailers):
                        finishRequestBody(trailers: trailers, &output)
                    }
                case .tunnelling, .awaitingClientHello, .closing, .closed:
                    return
                }
            }
        } catch {
            refuseMalformedRequest(error, &output)
        }
    }

    /// A request head arrived: route it, then decide (rules) or ask for an upstream connection.
    private mutating func startExchange(_ head: HTTPRequestHead, _ output: inout SessionOutput) {
        output.append(.cancelTimer(.clientIdle))
        let flowID = FlowID(flowIDs.next())
        let route: RequestRoute
        do {
            route = try RequestRoute.decide(head, mode: configuration.mode)
        } catch {
            traceRequestReceived(head, flow: flowID, url: head.target)
            refuse(status: error.status, code: error.code, message: error.message, flow: flowID, &output)
            return
        }
        if let pseudonym = configuration.viaPseudonym,
            head.headers.values(name: "via").contains(where: { $0.contains(pseudonym) })
        {
            traceRequestReceived(head, flow: flowID, url: route.url, route: route)
            refuse(
                status: 508, code: "proxy-loop",
                message: "the request already passed through this proxy (Via: \(pseudonym)); it would loop",
                flow: flowID, &output)
            return
        }
        let framing = requestDecoder.framing
        let outboundHead = Self.outboundHead(
            for: head, route: route, framing: framing, via: configuration.viaPseudonym,
            keepingHost: configuration.keepsClientHost)
        let keepAlive =
            head.version == .http1_0
            ? head.headers.containsToken("keep-alive", inField: "connection")
            : !head.headers.containsToken("close", inField: "connection")
        let flow = Flow(
            id: flowID, clientConnection: connectionID, kind: route.kind, endpoint: route.endpoint, method: head.method)
        let exchange = Exchange(
            flow: flow, route: route, requestHead: head, outboundHead: outboundHead, requestFraming: framing,
            closeClientAfter: !keepAlive, requestBody: trace.makeBodyDigest(),
            responseDecoder: HTTP1ResponseDecoder(limits: configuration.limits), responseBody: trace.makeBodyDigest())
        if route.kind != .connect {
            HTTP1Encoder.encode(outboundHead, into: &exchange.pendingUpstreamBytes)
        }
        self.exchange = exchange
        state = .exchanging
        if configuration.policy != nil, route.kind != .connect {
            beginRequestDecision(&output)
            return
        }
        traceRequestReceived(head, flow: flowID, url: route.url, route: route)
        if route.kind == .connect, let interception = configuration.interception {
            guard interception.intercepts(route.endpoint.host) else {
                exchange.tunnelReason = "ignored"
                output.append(.connectUpstream(route.endpoint, fresh: false))
                return
            }
            answerConnectEarly(&output)
            return
        }
        output.append(.connectUpstream(route.endpoint, fresh: false))
    }

    /// The head to send upstream: origin-form target, hop-by-hop fields removed, `Host` set to the
    /// upstream authority (RFC 9112 §3.2.2 for absolute-form), framing fields from the body framing,
    /// and `Via` added (RFC 9110 §7.6.3).
    static func outboundHead(
        for head: HTTPRequestHead, route: RequestRoute, framing: BodyFraming, via: String?, keepingHost: Bool = false
    ) -> HTTPRequestHead {
        var headers = HopByHopHeaders.removing(from: head.headers)
        let clientHost = keepingHost ? headers.values(name: "host").first : nil
        headers.remove(name: "host")
        var fields = HTTPHeaders()
        fields.add(name: "Host", value: clientHost ?? route.endpoint.hostHeaderValue)
        for field in headers { fields.append(field) }
        switch framing {
        case .contentLength(let length): fields.add(name: "Content-Length", value: String(length))
        case .chunked: fields.add(name: "Transfer-Encoding", value: "chunked")
        case .none, .closeDelimited, .tunnel: break
        }
        if route.kind == .upgrade {
            fields.add(name: "Connection", value: "Upgrade")
            for value in head.headers.values(name: "upgrade") { fields.add(name: "Upgrade", value: value) }
        }
        if let via { fields.add(name: "Via", value: "1.1 \(via)") }
        return HTTPRequestHead(method: head.method, target: route.outboundTarget, version: .http1_1, headers: fields)
    }

    private mutating func forwardRequestBody(_ bytes: ArraySlice<UInt8>, _ output: inout SessionOutput) {
        collectRequestBody(bytes, &output)
        guard let exchange = self.exchange, exchange.requestGate != .answered else { return }
        bytes.withUnsafeBytes { exchange.requestBody.update($0) }
        switch exchange.requestFraming {
        case .chunked:
            var encoded: [UInt8] = []
            encoded.reserveCapacity(bytes.count + 16)
            HTTP1Encoder.encodeChunk(bytes, into: &encoded)
            sendUpstream(encoded, exchange, &output)
        default:
            sendUpstream(bytes, exchange, &output)
        }
    }

    private mutating func finishRequestBody(trailers: HTTPHeaders?, _ output: inout SessionOutput) {
        guard let exchange = self.exchange else { return }
        if case .chunked = exchange.requestFraming {
            var encoded: [UInt8] = []
            HTTP1Encoder.encodeLastChunk(trailers: trailers, into: &encoded)
            sendUpstream(encoded, exchange, &output)
        }
        exchange.requestComplete = true
        exchange.requestBodySummary = exchange.requestBody.finish()
        if exchange.requestGate == .answered {
            finishAnsweredExchange(&output)
            return
        }
        if exchange.requestGate == .awaitingDecision {
            decideRequest(&output)
            return
        }
        if exchange.isUpstreamConnected { markRequestForwarded(&output) }
    }

    /// Writes request bytes upstream, or keeps them until the connection is up.
    func sendUpstream(_ bytes: some Collection<UInt8>, _ exchange: Exchange, _ output: inout SessionOutput) {
        if exchange.isUpstreamConnected {
            output.writeToUpstream(bytes)
        } else {
            exchange.pendingUpstreamBytes.append(contentsOf: bytes)
        }
    }

    /// The upstream connection is ready: send what waited, or open the tunnel for CONNECT.
    mutating func upstreamConnected(_ info: UpstreamConnectionInfo, _ output: inout SessionOutput) {
        guard let exchange = self.exchange else { return }
        exchange.upstream = .connected(info)
        if exchange.flow.kind == .connect {
            exchange.flow.phase = .tunnelling
            openConnectTunnel(info, &output)
            return
        }
        exchange.flow.phase = .forwarding
        exchange.responseDecoder.expectResponse(toMethod: exchange.requestHead.method)
        output.writeToUpstream(exchange.pendingUpstreamBytes)
        exchange.pendingUpstreamBytes = []
        if exchange.requestComplete { markRequestForwarded(&output) }
        // Body bytes that arrived while connecting may still sit in the decoder.
        processClientInput(&output)
    }

    /// The whole request is on its way upstream: trace it and start waiting for the response.
    private mutating func markRequestForwarded(_ output: inout SessionOutput) {
        guard let exchange = self.exchange, !exchange.requestForwarded,
            case .connected(let info) = exchange.upstream
        else { return }
        exchange.requestForwarded = true
        if !exchange.responseStarted { exchange.flow.phase = .awaitingResponse }
        var fields: [TraceField] = [
            .int("upstream_conn", Int64(info.id.rawValue)),
            .string("upstream", info.remoteAddress),
            .bool("reused", info.reused),
        ]
        if let summary = exchange.requestBodySummary { fields.append(.body("body", summary)) }
        trace.record(.requestForwarded, connection: connectionID, flow: exchange.flow.id, fields)
        if !exchange.responseStarted { output.append(.setTimer(.responseHead, configuration.responseTimeout)) }
        if let decision = exchange.decision {
            requestForwardedUnderRules(exchange, decision: decision, &output)
        }
    }

    /// Traces `request.received`; with a decision, also the role, lineage and presented credentials.
    func traceRequestReceived(
        _ head: HTTPRequestHead, flow: FlowID, url: String, route: RequestRoute? = nil,
        decision: FlowPolicy.RequestDecision? = nil
    ) {
        var fields: [TraceField] = [.string("method", head.method), .target("url", url)]
        if let route {
            fields.append(.string("host", route.endpoint.host))
            fields.append(.int("port", route.endpoint.port))
            if route.kind != .connect { fields.append(.target("path", route.path)) }
        }
        fields.append(.string("version", head.version.description))
        fields.append(.headers("headers", head.headers.map { (name: $0.name, value: $0.value) }))
        if let decision {
            fields.append(.string("role", decision.role))
            if let lineage = decision.lineage { fields.append(.string("lineage", lineage.description)) }
            if !decision.credentials.isEmpty {
                // "access=fp:…": the same fingerprints the redacted headers carry.
                fields.append(.strings("credentials", decision.credentials.map(\.traceText)))
            }
        }
        trace.record(.requestReceived, connection: connectionID, flow: flow, fields)
    }

    func traceRequestReceived(_ exchange: Exchange, decision: FlowPolicy.RequestDecision) {
        traceRequestReceived(
            exchange.requestHead, flow: exchange.flow.id, url: exchange.route.url, route: exchange.route,
            decision: decision)
    }
}
