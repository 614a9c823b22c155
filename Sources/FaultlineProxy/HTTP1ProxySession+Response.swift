import FaultlineCore
import FaultlineHTTP1
import FaultlineTrace

extension HTTP1ProxySession {
    /// Decodes buffered upstream bytes and relays the response to the client (through the
    /// response rules when the proxy has a policy).
    mutating func processUpstreamInput(_ output: inout SessionOutput) {
        // A complete response waiting behind a rule's gate is not followed by another one.
        while case .exchanging = state, let exchange = self.exchange, !exchange.upstreamEnded {
            let event: HTTP1ResponseEvent?
            do {
                event = try exchange.responseDecoder.nextEvent()
            } catch {
                upstreamProtocolError(error, &output)
                return
            }
            guard let event else { return }
            let underRules = exchange.decision != nil
            switch event {
            case .interim(let head):
                relayInterim(head, &output)
            case .head(let head):
                if underRules {
                    decideResponse(head, &output)
                } else {
                    output.append(.cancelTimer(.responseHead))
                    self.exchange?.responseHead = head
                    traceResponseReceived(head, flow: exchange.flow.id)
                    relayResponseHead(head, &output)
                }
            case .body(let bytes):
                if underRules { receiveResponseBodyUnderRules(bytes, &output) } else { relayResponseBody(bytes, &output) }
            case .end(let trailers):
                if underRules { endResponseUnderRules(trailers: trailers, &output) } else { finishResponse(trailers: trailers, &output) }
            }
        }
    }

    func traceResponseReceived(_ head: HTTPResponseHead, flow: FlowID) {
        trace.record(
            .responseReceived, connection: connectionID, flow: flow,
            [
                .int("status", head.status),
                .string("reason", head.reason),
                .string("version", head.version.description),
                .headers("headers", head.headers.map { (name: $0.name, value: $0.value) }),
            ])
    }

    /// 1xx responses other than 101 go to HTTP/1.1 clients only (RFC 9110 §15.2: never to HTTP/1.0).
    private mutating func relayInterim(_ head: HTTPResponseHead, _ output: inout SessionOutput) {
        guard let exchange, exchange.requestHead.version == .http1_1 else { return }
        var interim = head
        interim.version = .http1_1
        interim.headers = HopByHopHeaders.removing(from: head.headers)
        var bytes: [UInt8] = []
        HTTP1Encoder.encode(interim, into: &bytes)
        output.writeToClient(bytes)
    }

    /// Sends a response head to the client, re-framed for it: the upstream body's framing, or
    /// `framing` when the body sent is not the upstream's (a replacement, a fault).
    mutating func relayResponseHead(_ head: HTTPResponseHead, framing: BodyFraming? = nil, _ output: inout SessionOutput) {
        guard let exchange = self.exchange else { return }
        exchange.flow.phase = .streamingResponse
        exchange.flow.responseStatus = head.status
        let clientIsHTTP11 = exchange.requestHead.version == .http1_1
        let upgrading = exchange.flow.kind == .upgrade && head.status == 101
        let clientFraming: BodyFraming
        var headers = HopByHopHeaders.removing(from: head.headers)
        switch framing ?? exchange.responseDecoder.framing {
        case .none, .tunnel:
            clientFraming = .none
            // A response without a body still states the representation's length (HEAD, 304):
            // pass the field on unchanged (RFC 9110 §8.6).
            if let length = head.headers.first(name: "content-length") {
                headers.add(name: "Content-Length", value: length)
            }
        case .contentLength(let length):
            clientFraming = .contentLength(length)
            headers.add(name: "Content-Length", value: String(length))
        case .chunked, .closeDelimited:
            // Chunked cannot be sent to an HTTP/1.0 client (RFC 9112 §7): fall back to closing.
            clientFraming = clientIsHTTP11 ? .chunked : .closeDelimited
            if clientIsHTTP11 { headers.add(name: "Transfer-Encoding", value: "chunked") }
        }
        // The client connection survives only if both message framings stay intact.
        if !exchange.requestComplete || clientFraming == .closeDelimited || clientReachedEOF {
            exchange.closeClientAfter = true
        }
        if upgrading {
            headers.add(name: "Connection", value: "Upgrade")
            for value in head.headers.values(name: "upgrade") { headers.add(name: "Upgrade", value: value) }
        } else if exchange.closeClientAfter {
            headers.add(name: "Connection", value: "close")
        } else if !clientIsHTTP11 {
            headers.add(name: "Connection", value: "keep-alive")
        }
        if let via = configuration.viaPseudonym { headers.add(name: "Via", value: "1.1 \(via)") }
        let clientHead = HTTPResponseHead(version: .http1_1, status: head.status, reason: head.reason, headers: headers)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        HTTP1Encoder.encode(clientHead, into: &bytes)
        output.writeToClient(bytes)
        exchange.response = .streaming(clientFraming: clientFraming)
        exchange.sentResponseHead = clientHead
        if exchange.cutAfter == 0 { cutResponse(&output) }
    }

    /// Sends response body bytes framed for the client, honouring an armed cut fault.
    mutating func relayResponseBody(_ bytes: ArraySlice<UInt8>, _ output: inout SessionOutput) {
        guard let exchange, case .streaming(let framing) = exchange.response else { return }
        var bytes = bytes
        var cutNow = false
        if let remaining = exchange.cutAfter {
            if bytes.count >= remaining {
                bytes = bytes.prefix(remaining)
                cutNow = true
            }
            exchange.cutAfter = remaining - bytes.count
        }
        bytes.withUnsafeBytes { exchange.responseBody.update($0) }
        if exchange.responseTee != nil, let limit = configuration.policy?.bodyLimit {
            if exchange.responseTee!.count + bytes.count <= limit {
                exchange.responseTee!.append(contentsOf: bytes)
            } else {
                exchange.responseTee = nil
            }
        }
        if !bytes.isEmpty {
            if case .chunked = framing {
                var encoded: [UInt8] = []
                encoded.reserveCapacity(bytes.count + 16)
                HTTP1Encoder.encodeChunk(bytes, into: &encoded)
                output.writeToClient(encoded)
            } else {
                output.writeToClient(bytes)
            }
        }
        if cutNow { cutResponse(&output) }
    }

    /// The response is complete on the client side: trace it, then recycle or close the connections.
    mutating func finishResponse(trailers: HTTPHeaders?, _ output: inout SessionOutput) {
        guard let exchange = self.exchange, case .streaming(let framing) = exchange.response else { return }
        if case .chunked = framing {
            var bytes: [UInt8] = []
            HTTP1Encoder.encodeLastChunk(trailers: trailers, into: &bytes)
            output.writeToClient(bytes)
        }
        exchange.response = .complete
        let status = exchange.sentResponseHead?.status ?? 0
        trace.record(
            .responseDelivered, connection: connectionID, flow: exchange.flow.id,
            [.int("status", status), .body("body", exchange.responseBody.finish())])
        responseDeliveredUnderRules(exchange, sentHead: exchange.sentResponseHead, &output)
        if exchange.flow.kind == .upgrade, status == 101 {
            openUpgradeTunnel(&output)
            return
        }
        finishExchange(&output)
    }

    /// Recycles the upstream connection when its framing is intact, then serves the next request
    /// or closes the client connection.
    private mutating func finishExchange(_ output: inout SessionOutput) {
        guard let exchange = self.exchange else { return }
        exchange.flow.phase = .finished
        let head = exchange.responseHead
        let upstreamKeepsAlive: Bool
        if let head {
            upstreamKeepsAlive =
                head.version == .http1_1
                ? !head.headers.containsToken("close", inField: "connection")
                : head.headers.containsToken("keep-alive", inField: "connection")
        } else {
            upstreamKeepsAlive = false
        }
        let reusable =
            upstreamKeepsAlive && exchange.requestForwarded && exchange.responseDecoder.bufferedByteCount == 0
            && exchange.responseDecoder.framing != .closeDelimited && !exchange.responseDecoder.sawEOF
        output.append(reusable ? .releaseUpstream : .closeUpstream)
        // A throttle paces one exchange's response, not the connection.
        if exchange.responsePlan.throttle != nil { output.append(.throttle(.client, bytesPerSecond: nil)) }
        self.exchange = nil
        if exchange.closeClientAfter || !exchange.requestComplete {
            close(&output, reason: "connection-close")
            return
        }
        state = .idle
        output.append(.setTimer(.clientIdle, configuration.clientIdleTimeout))
        processClientInput(&output)
    }

    /// The upstream stopped (EOF or closed) while the exchange still needed it.
    mutating func upstreamEndedEarly(_ output: inout SessionOutput) {
        guard case .exchanging = state, let exchange else { return }
        if exchange.upstreamEnded { return }  // a complete response waits behind a rule's gate
        if exchange.responseStarted || exchange.responseHead != nil {
            if case .complete = exchange.response { return }
            // Part of the response is already with the client: the only honest signal left is to
            // cut the client connection so it sees a truncated message.
            upstreamBroke(
                code: "truncated-response",
                message: "\(exchange.route.endpoint) closed the connection in the middle of the response", &output)
            return
        }
        if case .connected(let info) = exchange.upstream, info.reused, !exchange.receivedResponseBytes,
            exchange.requestComplete, exchange.requestFraming == .none
        {
            // A pooled connection the upstream had already closed (RFC 9112 §9.3.1 allows retrying
            // a request that has no body on a new connection). The retry asks for a fresh
            // connection, which is never `reused`, so this happens at most once per request.
            retryOnFreshConnection(&output)
            return
        }
        failExchange(.closedBeforeResponse(exchange.route.endpoint.description), &output)
    }

    private mutating func retryOnFreshConnection(_ output: inout SessionOutput) {
        guard let exchange = self.exchange else { return }
        exchange.upstream = .connecting
        exchange.requestForwarded = false
        exchange.flow.phase = .connectingUpstream
        exchange.pendingUpstreamBytes = []
        HTTP1Encoder.encode(exchange.outboundHead, into: &exchange.pendingUpstreamBytes)
        exchange.responseDecoder = HTTP1ResponseDecoder(limits: configuration.limits)
        output.append(.cancelTimer(.responseHead))
        output.append(.closeUpstream)
        output.append(.connectUpstream(exchange.route.endpoint, fresh: true))
    }
}

