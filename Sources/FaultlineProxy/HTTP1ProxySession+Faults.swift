public import FaultlineCore
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace

/// Transport faults and hold outcomes: the ways a rule breaks or resumes a flow.
extension HTTP1ProxySession {
    /// A request-phase fault: the upstream is never contacted.
    mutating func injectRequestFault(_ fault: TransportFault, _ output: inout SessionOutput) {
        guard let exchange else { return }
        traceFault(fault, phase: .request)
        exchange.requestGate = .answered
        breakClient(fault, &output)
    }

    /// A response-phase fault that ends the exchange at the upstream head.
    mutating func injectResponseFault(_ fault: TransportFault, _ output: inout SessionOutput) {
        guard let exchange else { return }
        traceFault(fault, phase: .response)
        switch fault {
        case .malformedChunk:
            // A head that promises chunks, then a chunk-size line that is not hex (RFC 9112 §7.1).
            guard let head = exchange.pendingResponseHead ?? exchange.responseHead else { return }
            exchange.pendingResponseHead = nil
            exchange.responseGate = .replaced
            relayResponseHead(head, framing: .chunked, &output)
            output.writeToClient(Array("zz\r\nnot a chunk\r\n".utf8))
            endAfterFault(.closeClient(afterFlush: true), &output)
        case .stall(let duration):
            exchange.responseGate = .stalled
            output.append(.setTimer(.stall, duration))
        default:
            breakClient(fault, &output)
        }
    }

    /// Arms a cut after `bytes` body bytes (`close-mid-body` resets, `truncate` closes cleanly).
    mutating func armCut(after bytes: Int, reset: Bool, kind: String) {
        guard let exchange else { return }
        traceFault(reset ? .closeMidBody(afterBytes: bytes) : .truncate(bytes: bytes), phase: .response)
        exchange.cutAfter = bytes
        exchange.cutWithReset = reset
    }

    /// The armed cut is reached: the client sees a message shorter than its framing promised.
    mutating func cutResponse(_ output: inout SessionOutput) {
        guard let exchange else { return }
        endAfterFault(exchange.cutWithReset ? .resetClient : .closeClient(afterFlush: true), &output)
    }

    private mutating func breakClient(_ fault: TransportFault, _ output: inout SessionOutput) {
        switch fault {
        case .reset:
            endAfterFault(.resetClient, &output)
        case .closeBeforeResponse, .closeMidBody, .truncate, .malformedChunk:
            endAfterFault(.closeClient(afterFlush: false), &output)
        case .stall(let duration):
            output.append(.setTimer(.stall, duration))
        }
    }

    /// Drops the exchange, closes the upstream and ends the client connection with `action`.
    mutating func endAfterFault(_ action: ProxyAction, _ output: inout SessionOutput) {
        output.append(.cancelTimer(.responseHead))
        output.append(.cancelTimer(.flowDelay))
        output.append(.closeUpstream)
        exchange = nil
        closeReason = "fault"
        state = .closing
        output.append(.cancelTimer(.clientIdle))
        output.append(action)
    }

    private func traceFault(_ fault: TransportFault, phase: RulePhase) {
        guard let exchange else { return }
        trace.record(
            .faultInjected, connection: connectionID, flow: exchange.flow.id,
            [.string("fault", fault.name), .string("phase", phase.rawValue)])
    }

    // MARK: Holds and delays

    /// A hold registered with `.hold` ended.
    public mutating func holdEnded(flow: FlowID, outcome: HoldOutcome) -> [ProxyAction] {
        var output = SessionOutput()
        guard case .exchanging = state, let exchange, exchange.flow.id == flow else { return [] }
        let requestHeld = exchange.requestGate == .held
        guard requestHeld || exchange.responseGate == .held else { return [] }
        let spec = requestHeld ? exchange.requestPlan.hold : exchange.responsePlan.hold
        output.append(.cancelTimer(.holdDeadline))
        trace.record(
            .holdEnded, connection: connectionID, flow: flow,
            [.string("name", spec?.name ?? ""), .string("outcome", outcome.traceName)])
        var effective = outcome
        if outcome == .timeout {
            output.append(.unregisterHold(flow))
            switch spec?.onTimeout ?? .release {
            case .release: effective = .release(nil)
            case .respond(let status): effective = .release(SyntheticResponse(status: status))
            case .reset: effective = .fail
            }
        }
        switch effective {
        case .release(nil), .timeout:
            if requestHeld { continueRequest(&output) } else { continueResponse(&output) }
        case .release(let response?):
            if requestHeld { answerWithoutUpstream(response, &output) } else { replaceResponse(with: response, &output) }
        case .fail:
            endAfterFault(.resetClient, &output)
        }
        return output.finish()
    }

    /// A delay, hold deadline or stall timer of the current flow fired.
    mutating func flowTimerFired(_ timer: ProxyTimer, _ output: inout SessionOutput) {
        guard case .exchanging = state, let exchange else { return }
        switch timer {
        case .flowDelay:
            if exchange.requestGate == .delayed { continueRequest(&output) }
            if exchange.responseGate == .delayed { continueResponse(&output) }
        case .holdDeadline:
            output.append(contentsOf: holdEnded(flow: exchange.flow.id, outcome: .timeout))
        case .stall:
            endAfterFault(.closeClient(afterFlush: false), &output)
        case .responseHead, .clientIdle:
            break
        }
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
        }
    }
}

extension HoldOutcome {
    var traceName: String {
        switch self {
        case .release(nil): return "released"
        case .release(.some): return "released-with-response"
        case .fail: return "failed"
        case .timeout: return "timed-out"
        }
    }
}
