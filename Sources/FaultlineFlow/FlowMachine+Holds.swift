import FaultlineCore
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace

/// Holds, delays and the flow's timers.
extension FlowMachine {
    /// A hold registered with `.hold` ended by the control API or by the event it waited for.
    public mutating func holdEnded(_ ending: HoldEnding) -> [FlowAction] {
        var output = FlowOutput(reusing: &spareActions)
        guard let spec = heldSpec else { return [] }
        holdRegistered = false
        var fields: [TraceField] = [.string("name", spec.name), .string("outcome", ending.outcome.traceName)]
        switch ending.cause {
        case .control: fields.append(.string("ended_by", "control"))
        case .event(let event): fields += [.string("ended_by", "event"), .string("release_on", event)]
        case .explorer: fields.append(.string("ended_by", "explore"))
        }
        endHold(spec, fields: fields, effective: ending.outcome, &output)
        return output.actions
    }

    /// The hold of the current state, if the flow is held.
    var heldSpec: HoldSpec? {
        switch state {
        case .requestHeld(_, let spec), .responseGated(_, .held(let spec), _): return spec
        default: return nil
        }
    }

    /// The deadline of a hold passed: its `onTimeout` decides.
    private mutating func holdDeadlinePassed(_ output: inout FlowOutput) {
        guard let spec = heldSpec else { return }
        holdRegistered = false
        output.append(.unregisterHold(id))
        var fields: [TraceField] = [
            .string("name", spec.name), .string("outcome", HoldOutcome.timeout.traceName),
            .string("ended_by", "deadline"),
        ]
        let effective: HoldOutcome
        switch spec.onTimeout {
        case .release:
            fields.append(.string("applied", "release"))
            effective = .release(nil)
        case .respond(let status):
            fields += [.string("applied", "status"), .int("status", status)]
            effective = .release(SyntheticResponse(status: status))
        case .reset:
            fields.append(.string("applied", "reset"))
            effective = .fail
        }
        endHold(spec, fields: fields, effective: effective, &output)
    }

    private mutating func endHold(
        _ spec: HoldSpec, fields: [TraceField], effective: HoldOutcome, _ output: inout FlowOutput
    ) {
        cancel(.holdDeadline, &output)
        output.trace(id, .holdEnded, fields)
        let requestHeld: Bool
        if case .requestHeld = state { requestHeld = true } else { requestHeld = false }
        switch effective {
        case .release(nil), .timeout:
            if requestHeld {
                continueRequest(&output)
            } else {
                continueResponse(&output)
            }
        case .release(let response?):
            if requestHeld {
                answer(with: response, &output)
            } else if case .responseGated(_, _, let pending) = state {
                replaceResponse(with: response, behind: pending, &output)
            }
        case .fail:
            abort(.reset, &output)
        }
    }

    /// A timer armed with `.armTimer` fired.
    public mutating func timerFired(_ timer: FlowTimer) -> [FlowAction] {
        var output = FlowOutput(reusing: &spareActions)
        guard armedTimers.remove(timer) else { return [] }
        switch (timer, state) {
        case (.responseHead, .forwarding):
            upstreamFailed(.responseTimeout(request.endpoint.description), &output)
        case (.delay, .requestDelayed):
            continueRequest(&output)
        case (.delay, .responseGated(_, .delayed, _)):
            continueResponse(&output)
        case (.holdDeadline, _):
            holdDeadlinePassed(&output)
        case (.stall, _):
            abort(.close, &output)
        default:
            break
        }
        return output.actions
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
