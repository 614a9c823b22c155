import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
public import FaultlineRules
import FaultlineTrace

extension HTTP1ProxySession {
    /// The client sent something the codec refuses. Its framing is in doubt, so after the error
    /// response the connection closes and nothing after it is read as a request.
    mutating func refuseMalformedRequest(_ error: HTTP1Error, _ output: inout SessionOutput) {
        if flowID != nil {
            updateExchange { $0.closeAfter = true }
            flowInput(&output) {
                $0.requestMalformed(status: error.status, code: error.code, message: error.description)
            }
            if case .closing = state {} else { close(&output, reason: "protocol-error") }
            return
        }
        let flowID = exchange?.flow
        switch state {
        case .connecting(let connect), .awaitingClientHello(let connect, _): abortConnect(connect, &output, reason: nil)
        default: break
        }
        traceClientError(error, flow: flowID, &output)
        answerWithErrorPage(status: error.status, code: error.code, message: error.description, flow: flowID, &output)
        close(&output, reason: "protocol-error")
    }

    /// No byte of the request body for the body timeout. While the flow is on, it ends as for a
    /// malformed body (408, or a cut connection once its response has begun); a body drained
    /// after an early answer has had its response, so the connection just closes.
    mutating func bodyTimerFired(_ output: inout SessionOutput) {
        if flowID != nil {
            refuseMalformedRequest(.bodyTimeout, &output)
            return
        }
        traceClientError(.bodyTimeout, flow: exchange?.flow, &output)
        close(&output, reason: "body-timeout")
    }

    /// `protocol.error` for what the client did wrong, when no flow core traces it.
    private func traceClientError(_ error: HTTP1Error, flow: FlowID?, _ output: inout SessionOutput) {
        output.trace(
            TraceEntry(
                .protocolError, connection: connectionID, flow: flow,
                [
                    .string("side", "client"), .string("code", error.code), .int("status", Int64(error.status)),
                    .string("message", error.description),
                ]))
    }

    /// An error page the framing answers itself (no flow core: a head it could not decode, a
    /// `CONNECT` it could not connect), framed to close the connection, traced as delivered.
    func answerWithErrorPage(status: Int, code: String, message: String, flow: FlowID?, _ output: inout SessionOutput) {
        output.writeToClient(ErrorResponse.make(status: status, code: code, message: message).encode(closing: true))
        output.trace(
            TraceEntry(
                .responseDelivered, connection: connectionID, flow: flow,
                [.int("status", Int64(status)), .bool("synthetic", true), .string("code", code)]))
    }
}

extension SyntheticResponse {
    /// The complete HTTP/1.1 response, framed by `Content-Length`, with `Connection: close` when
    /// the connection ends after it.
    public func encode(closing: Bool, via: String? = nil) -> [UInt8] {
        var head = self.head
        head.headers.add(name: "Content-Length", value: String(body.count))
        if closing { head.headers.add(name: "Connection", value: "close") }
        if let via { head.headers.add(name: "Via", value: "1.1 \(via)") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 + body.count)
        HTTP1Encoder.encode(head, into: &bytes)
        bytes.append(contentsOf: body)
        return bytes
    }
}
