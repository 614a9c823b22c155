public import FaultlineCore
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace

/// How flows end: `end(_:)` is the one exit; faults, upstream failures and a client that leaves
/// come here through it.
extension FlowMachine {
    /// Ends the flow: what is still armed or registered is undone, then `.ended` is the last action.
    mutating func end(_ outcome: FlowOutcome, _ output: inout FlowOutput) {
        guard !isEnded else { return }
        for timer in FlowTimer.allCases where armedTimers.contains(timer) { output.append(.cancelTimer(id, timer)) }
        armedTimers.removeAll()
        if streamingCopies, !requestComplete { output.append(.duplicateEnd(id, complete: false)) }
        streamingCopies = false
        dropHold(because: outcome, &output)
        // A throttle paces one flow, not the connection.
        if requestPlan.throttle != nil { output.append(.throttle(id, .upstream, bytesPerSecond: nil)) }
        if responsePlan?.throttle != nil { output.append(.throttle(id, .client, bytesPerSecond: nil)) }
        state = .ended(outcome)
        output.append(.ended(id, outcome))
    }

    /// Ends the flow by breaking its client side (a fault, a failed hold).
    mutating func abort(_ how: ClientBreak, _ output: inout FlowOutput) {
        if upstreamRequested { output.append(.closeUpstream(id)) }
        output.append(.breakClient(id, how, code: faultCode))
        end(.aborted, &output)
    }

    /// Traces a transport fault and breaks the client side the way it says. False when that
    /// ends the flow; true when the flow goes on (a GOAWAY that keeps this stream).
    mutating func inject(_ fault: TransportFault, phase: RulePhase, _ output: inout FlowOutput) -> Bool {
        traceFault(fault, phase: phase, &output)
        if case .goAway(thisStreamProcessed: true) = fault {
            output.append(.goAwayClient(id, code: faultCode ?? .noError, thisStreamProcessed: true))
            return true
        }
        breakClient(fault, &output)
        return false
    }

    /// The HTTP/2 error code the rule of the fault that fired gave (the response phase's, else
    /// the request phase's): for the RST_STREAM, or the GOAWAY, that breaks the client.
    var faultCode: HTTP2ErrorCode? {
        if let responsePlan, responsePlan.fault != nil { return responsePlan.faultCode }
        return requestPlan.faultCode
    }

    /// Breaks the client side the way a transport fault says.
    mutating func breakClient(_ fault: TransportFault, _ output: inout FlowOutput) {
        switch fault {
        case .goAway:
            // This stream is not processed: HTTP/2 refuses it with the GOAWAY, HTTP/1.1 closes.
            output.append(.goAwayClient(id, code: faultCode ?? .noError, thisStreamProcessed: false))
            abort(.close, &output)
        case .reset:
            abort(.reset, &output)
        case .closeBeforeResponse, .closeMidBody, .truncate:
            abort(.close, &output)
        case .malformedChunk:
            abort(.malformedBody, &output)
        case .stall(let duration):
            state = .stalled(decided)
            arm(.stall, duration, &output)
        }
    }

    /// The armed cut is reached: the client sees a message shorter than its framing promised.
    mutating func cutResponse(_ cut: ResponseCut, _ output: inout FlowOutput) {
        abort(cut.reset ? .reset : .closeAfterFlush, &output)
    }

    func traceFault(_ fault: TransportFault, phase: RulePhase, _ output: inout FlowOutput) {
        output.trace(id, .faultInjected, [.string("fault", fault.name), .string("phase", phase.rawValue)])
    }

    // MARK: Failures

    /// No response can be had from the upstream (connect failure, timeout, close before any
    /// response byte): answered 502 or 504 when nothing was sent yet, else the client is cut.
    public mutating func upstreamFailed(_ failure: UpstreamFailure) -> [FlowAction] {
        var output = FlowOutput(reusing: &spareActions)
        upstreamFailed(failure, &output)
        return output.actions
    }

    mutating func upstreamFailed(_ failure: UpstreamFailure, _ output: inout FlowOutput) {
        guard !isEnded else { return }
        var fields: [TraceField] = [
            .string("upstream", request.endpoint.description), .string("code", failure.code),
            .int("status", Int64(failure.status)), .string("message", failure.description),
        ]
        if let duplicateOf { fields.append(.int("duplicate_of", duplicateOf.rawValue)) }
        output.trace(id, .upstreamError, fields)
        output.append(.closeUpstream(id))
        if responseStarted || duplicateOf != nil {
            if duplicateOf == nil { output.append(.breakClient(id, .closeAfterFlush, code: faultCode)) }
            end(.failed, &output)
            return
        }
        answerError(status: failure.status, code: failure.code, message: failure.description, &output)
        end(.failed, &output)
    }

    /// The upstream's response cannot be decoded or stopped short (RFC 9112 §6.3: a proxy answers
    /// 502 for a response with invalid framing and closes the upstream connection).
    public mutating func upstreamBroke(code: String, message: String) -> [FlowAction] {
        var output = FlowOutput(reusing: &spareActions)
        guard !isEnded else { return [] }
        if case .awaitingResponseDecision(let decided, var awaited) = state {
            awaited.inputs.append(.broke(code: code, message: message))
            state = .awaitingResponseDecision(decided, awaited)
            return []
        }
        output.trace(
            id, .protocolError,
            [.string("side", "upstream"), .string("code", code), .int("status", 502), .string("message", message)])
        output.append(.closeUpstream(id))
        if responseStarted || duplicateOf != nil {
            if duplicateOf == nil { output.append(.breakClient(id, .closeAfterFlush, code: faultCode)) }
            end(.upstreamBroke, &output)
            return output.actions
        }
        answerError(status: 502, code: code, message: message, &output)
        end(.upstreamBroke, &output)
        return output.actions
    }

    /// The client's request turned out malformed (its body's framing): answered when nothing was
    /// sent yet; the framing closes the connection after it.
    public mutating func requestMalformed(status: Int, code: String, message: String) -> [FlowAction] {
        var output = FlowOutput(reusing: &spareActions)
        guard !isEnded else { return [] }
        traceReceivedIfAsking(&output)
        output.trace(
            id, .protocolError,
            [
                .string("side", "client"), .string("code", code), .int("status", Int64(status)),
                .string("message", message),
            ])
        if upstreamRequested { output.append(.closeUpstream(id)) }
        if responseStarted {
            output.append(.breakClient(id, .closeAfterFlush, code: faultCode))
        } else {
            answerError(status: status, code: code, message: message, &output)
        }
        end(.refused, &output)
        return output.actions
    }

    /// The client went away (closed, reset, or left while its flow was held): nothing more goes
    /// upstream or to the client.
    public mutating func clientGone(reason: String) -> [FlowAction] {
        var output = FlowOutput(reusing: &spareActions)
        guard !isEnded else { return [] }
        traceReceivedIfAsking(&output)
        dropHold(because: .clientGone, &output)
        output.trace(id, .flowAborted, [.string("reason", reason)])
        if upstreamRequested { output.append(.closeUpstream(id)) }
        end(.clientGone, &output)
        return output.actions
    }

    /// A flow that ends while its request question is out (the client left in the same read)
    /// still says what it received, as it did when the rules answered inside the read; without
    /// the answer it names no role.
    private mutating func traceReceivedIfAsking(_ output: inout FlowOutput) {
        guard case .awaitingRequestDecision = state else { return }
        traceRequestReceived(&output)
    }

    /// A hold still registered when its flow ends some other way (the client left, the upstream
    /// broke, a malformed body): `hold.ended` says so, and the registry forgets it.
    private mutating func dropHold(because outcome: FlowOutcome, _ output: inout FlowOutput) {
        guard holdRegistered else { return }
        holdRegistered = false
        if let spec = heldSpec {
            output.trace(
                id, .holdEnded,
                [
                    .string("name", spec.name), .string("outcome", outcome.rawValue),
                    .string("ended_by", outcome.rawValue),
                ])
        }
        output.append(.unregisterHold(id))
    }

    /// Answers the client with an error page made by the proxy.
    mutating func answerError(status: Int, code: String, message: String, _ output: inout FlowOutput) {
        let page = ErrorResponse.make(status: status, code: code, message: message)
        sendSynthetic(page, source: .proxyError, &output)
        output.trace(
            id, .responseDelivered, [.int("status", Int64(status)), .bool("synthetic", true), .string("code", code)])
    }

    /// A request refused before it became a flow of the rules (unroutable, a loop): traced as
    /// received, answered with an error page, ended as `refused`.
    public static func refuse(
        id: FlowID, request: FlowRequest, status: Int, code: String, message: String, environment: FlowEnvironment,
        routed: Bool
    ) -> [FlowAction] {
        var plain = environment
        plain.rules = nil
        var flow = FlowMachine(id: id, request: request, duplicateOf: nil, environment: plain)
        var output = FlowOutput(reusing: &flow.spareActions)
        flow.traceRequestReceived(routed: routed, &output)
        output.trace(
            id, .protocolError,
            [
                .string("side", "client"), .string("code", code), .int("status", Int64(status)),
                .string("message", message),
            ])
        flow.answerError(status: status, code: code, message: message, &output)
        flow.end(.refused, &output)
        return output.actions
    }
}

extension TransportFault {
    /// The rule-file spelling, for the trace.
    var name: String {
        switch self {
        case .reset: return "reset"
        case .closeBeforeResponse: return "close-before-response"
        case .closeMidBody: return "close-mid-body"
        case .truncate: return "truncate"
        case .stall: return "stall"
        case .malformedChunk: return "malformed-chunk"
        case .goAway: return "goaway"
        }
    }
}
