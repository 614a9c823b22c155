import FaultlineCore
import FaultlineHTTP1
import FaultlineTrace

extension HTTP1ProxySession {
    /// The client sent something the codec refuses. Its framing is in doubt, so after the error
    /// response the connection closes and nothing after it is read as a request.
    mutating func refuseMalformedRequest(_ error: HTTP1Error, _ output: inout SessionOutput) {
        refuse(status: error.status, code: error.code, message: error.description, flow: exchange?.flow.id, &output)
    }

    /// Answers the client with an error made by the proxy and closes the connection.
    mutating func refuse(status: Int, code: String, message: String, flow: FlowID?, _ output: inout SessionOutput) {
        trace.record(
            .protocolError, connection: connectionID, flow: flow,
            [.string("side", "client"), .string("code", code), .int("status", Int64(status)), .string("message", message)])
        if exchange != nil { output.append(.closeUpstream) }
        let responseStarted = exchange?.responseStarted ?? false
        exchange = nil
        if responseStarted {
            // Part of a response already went out; an error page cannot follow it.
            closeReason = "protocol-error"
            state = .closing
            output.append(.closeClient(afterFlush: true))
            return
        }
        sendErrorResponse(status: status, code: code, message: message, flow: flow, closing: true, &output)
        close(&output, reason: "protocol-error")
    }

    /// The upstream's response cannot be decoded (RFC 9112 §6.3: a proxy answers 502 for a response
    /// with invalid framing and closes the upstream connection).
    mutating func upstreamProtocolError(_ error: HTTP1Error, _ output: inout SessionOutput) {
        upstreamBroke(code: error.code, message: error.description, &output)
    }

    /// The upstream connection cannot carry this exchange further.
    mutating func upstreamBroke(code: String, message: String, _ output: inout SessionOutput) {
        guard let exchange else { return }
        trace.record(
            .protocolError, connection: connectionID, flow: exchange.flow.id,
            [.string("side", "upstream"), .string("code", code), .int("status", 502), .string("message", message)])
        output.append(.cancelTimer(.responseHead))
        output.append(.closeUpstream)
        self.exchange = nil
        if exchange.responseStarted {
            closeReason = "upstream-broke"
            state = .closing
            output.append(.closeClient(afterFlush: true))
            return
        }
        sendErrorResponse(status: 502, code: code, message: message, flow: exchange.flow.id, closing: true, &output)
        close(&output, reason: "upstream-broke")
    }

    /// No response can be had from the upstream (connect failure, timeout, early close): answer
    /// 502 or 504, and keep the client connection when its request was read completely.
    mutating func failExchange(_ failure: UpstreamFailure, _ output: inout SessionOutput) {
        guard let exchange else { return }
        trace.record(
            .upstreamError, connection: connectionID, flow: exchange.flow.id,
            [
                .string("upstream", exchange.route.endpoint.description), .string("code", failure.code),
                .int("status", Int64(failure.status)), .string("message", failure.description),
            ])
        output.append(.cancelTimer(.responseHead))
        output.append(.closeUpstream)
        self.exchange = nil
        if exchange.responseStarted {
            closeReason = "upstream-failed"
            state = .closing
            output.append(.closeClient(afterFlush: true))
            return
        }
        let keepClient = exchange.requestComplete && !exchange.closeClientAfter && !clientReachedEOF
        sendErrorResponse(
            status: failure.status, code: failure.code, message: failure.description, flow: exchange.flow.id,
            closing: !keepClient, &output)
        if keepClient {
            state = .idle
            output.append(.setTimer(.clientIdle, configuration.clientIdleTimeout))
            processClientInput(&output)
        } else {
            close(&output, reason: "upstream-failed")
        }
    }

    /// The client went away in the middle of an exchange.
    mutating func abortExchange(_ output: inout SessionOutput, reason: String) {
        guard let exchange else { return }
        trace.record(.flowAborted, connection: connectionID, flow: exchange.flow.id, [.string("reason", reason)])
        output.append(.cancelTimer(.responseHead))
        output.append(.closeUpstream)
        self.exchange = nil
    }

    private func sendErrorResponse(
        status: Int, code: String, message: String, flow: FlowID?, closing: Bool, _ output: inout SessionOutput
    ) {
        output.writeToClient(ErrorResponse.encode(status: status, code: code, message: message, closing: closing))
        trace.record(
            .responseDelivered, connection: connectionID, flow: flow,
            [.int("status", Int64(status)), .bool("synthetic", true), .string("code", code)])
    }
}

extension TraceEventKind {
    /// A flow ended before its response was delivered because the client went away.
    static let flowAborted: TraceEventKind = "flow.aborted"
}
