import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineTrace

extension HTTP1ProxySession {
    /// Decodes buffered client bytes as far as the current state allows.
    mutating func processClientInput(_ output: inout SessionOutput) {
        do {
            while true {
                switch state {
                case .idle:
                    guard let event = try requestDecoder.nextEvent() else {
                        if clientReachedEOF, requestDecoder.isAtMessageBoundary {
                            close(&output, reason: "client-closed")
                        } else if !headTimerArmed, requestDecoder.bufferedByteCount > 0 {
                            // A head has begun: it has the header timeout to end in.
                            headTimerArmed = true
                            output.append(.setTimer(.requestHead, configuration.headerTimeout))
                        }
                        return
                    }
                    guard case .head(let head) = event else {
                        preconditionFailure("request decoder produced \(event) before a head")
                    }
                    startExchange(head, &output)
                case .exchanging(let exchange), .draining(let exchange):
                    // Pipelined requests stay in the decoder until this exchange ends.
                    guard !exchange.requestRead else { return }
                    guard let event = try requestDecoder.nextEvent() else { return }
                    switch event {
                    case .head:
                        preconditionFailure("request decoder produced a head inside a body")
                    case .body(let bytes):
                        if case .exchanging = state { flowInput(&output) { $0.requestBody(bytes) } }
                    case .end(let trailers):
                        updateExchange { $0.requestRead = true }
                        if case .draining = state {
                            exchangeDone(&output)
                        } else {
                            flowInput(&output) { $0.requestEnd(trailers: trailers) }
                        }
                    }
                case .connecting, .awaitingClientHello, .tunnelling, .closing, .closed:
                    // After a `CONNECT` head the bytes are the tunnel's, never a request.
                    return
                }
            }
        } catch {
            refuseMalformedRequest(error, &output)
        }
    }

    /// A request head arrived: route it, then start its flow (or its `CONNECT`).
    private mutating func startExchange(_ head: HTTPRequestHead, _ output: inout SessionOutput) {
        output.append(.cancelTimer(.clientIdle))
        cancelHeadTimer(&output)
        let flowID = FlowID(flowIDs.next())
        let keepAlive =
            head.version == .http1_0
            ? head.headers.containsToken("keep-alive", inField: "connection")
            : !head.headers.containsToken("close", inField: "connection")
        let framing = requestDecoder.framing
        let route: RequestRoute
        do {
            route = try RequestRoute.decide(head, mode: configuration.mode, previous: previousEndpoint)
        } catch {
            refuseRequest(head, flow: flowID, url: head.target, route: nil, error, &output)
            return
        }
        previousEndpoint = route.endpoint
        state = .exchanging(
            ClientExchange(
                flow: flowID, kind: route.kind, version: head.version, requestFraming: framing, closeAfter: !keepAlive))
        if let pseudonym = configuration.viaPseudonym,
            head.headers.values(name: "via").contains(where: { $0.contains(pseudonym) })
        {
            let refusal = RequestRoute.Refusal(
                status: 508, code: "proxy-loop",
                message: "the request already passed through this proxy (Via: \(pseudonym)); it would loop")
            refuseRequest(head, flow: flowID, url: route.url, route: route, refusal, &output)
            return
        }
        let request = flowRequest(head, route: route, framing: framing)
        if route.kind == .connect {
            startConnect(flowID, request: request, &output)
            return
        }
        upstream = nil
        flow = FlowMachine(id: flowID, request: request, environment: environment)
        perform(flow!.start(), &output)
    }

    /// What the flow core is told about a request: routing, the client's fields, the body length.
    private func flowRequest(_ head: HTTPRequestHead, route: RequestRoute, framing: BodyFraming) -> FlowRequest {
        let clientHost = configuration.keepsClientHost ? head.headers.first(name: "host") : nil
        let length: FlowBodyLength
        switch framing {
        case .none, .tunnel: length = .none
        case .contentLength(let bytes): length = .known(bytes)
        case .chunked, .closeDelimited: length = .unknown
        }
        return FlowRequest(
            kind: route.kind, method: head.method, endpoint: route.endpoint, path: route.path, query: route.query,
            outboundTarget: route.outboundTarget, url: route.url, version: head.version.description,
            headers: head.headers,
            authority: clientHost ?? route.endpoint.hostHeaderValue, body: length)
    }

    /// A request the router or the loop check refuses: traced, answered, and the connection closes.
    private mutating func refuseRequest(
        _ head: HTTPRequestHead, flow: FlowID, url: String, route: RequestRoute?, _ refusal: RequestRoute.Refusal,
        _ output: inout SessionOutput
    ) {
        let placeholder = UpstreamEndpoint(scheme: "http", host: "", port: 80)
        let request = FlowRequest(
            kind: route?.kind ?? .exchange, method: head.method, endpoint: route?.endpoint ?? placeholder,
            path: route?.path ?? "", query: route?.query, outboundTarget: "", url: url,
            version: head.version.description,
            headers: head.headers, authority: "", body: .none)
        var exchange =
            self.exchange
            ?? ClientExchange(
                flow: flow, kind: request.kind, version: head.version, requestFraming: .none, closeAfter: true)
        exchange.closeAfter = true
        state = .exchanging(exchange)
        let actions = FlowMachine.refuse(
            id: flow, request: request, status: refusal.status, code: refusal.code, message: refusal.message,
            environment: environment, routed: route != nil)
        perform(actions, &output)
    }
}

extension BodyFraming {
    /// True when a message with this framing may carry body bytes.
    var carriesBody: Bool {
        switch self {
        case .contentLength(let length): return length > 0
        case .chunked, .closeDelimited, .tunnel: return true
        case .none: return false
        }
    }
}

extension HTTP1ProxySession {
    /// Stops the header timeout: the head ended, or the connection is closing.
    mutating func cancelHeadTimer(_ output: inout SessionOutput) {
        guard headTimerArmed else { return }
        headTimerArmed = false
        output.append(.cancelTimer(.requestHead))
    }
}
