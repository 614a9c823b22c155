import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace

/// Response-phase rules: at the upstream head the flow asks the rules (`RuleQuestion.response`)
/// and follows the `ResponsePlan` of the answer through the response gate: fault, hold, delay, whole-body collection for JSON
/// edits, then a replacement response or the rewritten upstream one. Body bytes that arrive while
/// the gate is closed wait in the gate's `PendingResponse`.
extension FlowMachine {
    /// A 2xx answer to a login of a capture numbers the lineage it starts as its head arrives,
    /// so the capture's `response.body` can name it (the driver reserves it when asked).
    func reservesLineage(_ decision: RequestDecision, _ head: HTTPResponseHead) -> Bool {
        capture != nil && decision.tracksLineage && decision.role == FlowRole.login && (200...299).contains(head.status)
    }

    /// Follows the response-phase answer for the upstream head of a flow that has a decision.
    mutating func follow(
        _ answer: ResponseDecision, _ head: HTTPResponseHead, length: FlowBodyLength, _ output: inout FlowOutput
    ) {
        guard let decided else { return }
        let decision = decided.decision
        if decided.plan.duplicate == nil { collected = nil }
        traceRulesFired(answer.fired, &output)
        observe(.responded, &output)
        let plan = ResponsePlan(answer.fired)
        var pending = PendingResponse(head: head, length: length, plan: plan, replayedCookies: answer.replayedCookies)
        pending.teesBody = decision.role != FlowRole.business && decision.tracksLineage
        pending.cut = plan.fault.flatMap(ResponseCut.init)
        // The response is behind the gate from here; the plan's fault, hold and delay pick the gate.
        state = .responseGated(decided, .collecting, pending)
        switch plan.fault {
        case let fault? where pending.cut != nil:
            traceFault(fault, phase: .response, &output)
        case .malformedChunk?:
            traceFault(.malformedChunk, phase: .response, &output)
            sendResponseHead(head, .unknown, armed: pending, &output)
            abort(.malformedBody, &output)
            return
        case .stall(let duration)?:
            traceFault(.stall(duration), phase: .response, &output)
            state = .responseGated(decided, .stalled, pending)
            arm(.stall, duration, &output)
            return
        case let fault?:
            guard inject(fault, phase: .response, &output) else { return }
        case nil:
            break
        }
        if let hold = plan.hold {
            state = .responseGated(decided, .held(hold), pending)
            startHold(hold, phase: .response, &output)
            return
        }
        continueResponse(&output)
    }

    /// After a hold: delay, wait for the whole body when a JSON edit needs it, then open the gate.
    mutating func continueResponse(_ output: inout FlowOutput) {
        guard case .responseGated(let decided, let gate, let pending) = state else { return }
        if pending.plan.delay > .zero {
            if case .delayed = gate {
            } else {
                state = .responseGated(decided, .delayed, pending)
                arm(.delay, pending.plan.delay, &output)
                return
            }
        }
        state = .responseGated(decided, .collecting, pending)
        if pending.plan.needsWholeBody, !pending.ended { return }
        openResponseGate(&output)
    }

    /// Sends the (rewritten) response head and whatever body waited, or the replacement response.
    mutating func openResponseGate(_ output: inout FlowOutput) {
        guard case .responseGated(_, _, let pending) = state else { return }
        let plan = pending.plan
        if let response = plan.respond {
            replaceResponse(with: response, behind: pending, &output)
            return
        }
        var edited = ResponseEditor.apply(plan, to: pending.head, replayedCookies: pending.replayedCookies)
        var replacement = edited.body
        if replacement == nil, plan.needsWholeBody {
            replacement = ResponseEditor.applyJSONEdits(plan, to: pending.body)
        }
        if let replacement {
            edited.head.headers.remove(name: "content-length")
            edited.head.headers.remove(name: "transfer-encoding")
            sendReplacement(head: edited.head, body: replacement, source: .upstream, behind: pending, &output)
            return
        }
        sendResponseHead(edited.head, pending.length, armed: pending, &output)
        guard case .streaming = state else { return }  // a cut at byte 0
        if let rate = plan.throttle { output.append(.throttle(id, .client, bytesPerSecond: rate)) }
        if !pending.body.isEmpty { relayBody(pending.body[...], &output) }
        if pending.ended, case .streaming = state { finishResponse(trailers: pending.trailers, &output) }
    }

    /// Replaces the upstream response with a rule's (or a release override's) response; the rest
    /// of the upstream body is read and dropped so the upstream can still be reused.
    mutating func replaceResponse(
        with response: SyntheticResponse, behind pending: PendingResponse, _ output: inout FlowOutput
    ) {
        sendReplacement(head: response.head, body: response.body, source: .rule, behind: pending, &output)
    }

    /// Sends `head` with `body` framed by its length, then ends once the upstream is done.
    private mutating func sendReplacement(
        head: HTTPResponseHead, body: [UInt8], source: ResponseSource, behind pending: PendingResponse,
        _ output: inout FlowOutput
    ) {
        sendResponseHead(head, .known(Int64(body.count)), source: source, armed: pending, &output)
        guard case .streaming = state else { return }  // a cut at byte 0
        relayBody(body[...], &output)
        guard case .streaming = state else { return }
        let outcome: FlowOutcome = source == .rule ? .answered : .finished
        if duplicateOf == nil { output.append(.sendResponseEnd(id, trailers: nil)) }
        traceResponseDelivered(status: head.status, headers: head.headers, body: responseDigest.finish(), &output)
        responseDelivered(&output)
        if pending.ended {
            output.append(.releaseUpstream(id))
            end(outcome, &output)
        } else {
            guard case .streaming(let decided, let stream) = state else { return }
            state = .draining(decided, stream, outcome)
        }
    }
}
