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
        guard let decision else { return }
        let fired = answer.fired
        responsePlan = ResponsePlan(fired)
        replayedCookies = answer.replayedCookies
        if requestPlan.duplicate == nil { collected = nil }
        traceRulesFired(fired, &output)
        observe(.responded, &output)
        var pending = PendingResponse(head: head, length: length)
        pending.teesBody = decision.role != FlowRole.business && decision.tracksLineage
        switch responsePlan.fault {
        case .closeMidBody(let bytes)?:
            traceFault(.closeMidBody(afterBytes: bytes), phase: .response, &output)
            pending.cut = ResponseCut(remaining: bytes, reset: true)
        case .truncate(let bytes)?:
            traceFault(.truncate(bytes: bytes), phase: .response, &output)
            pending.cut = ResponseCut(remaining: bytes, reset: false)
        case .malformedChunk?:
            traceFault(.malformedChunk, phase: .response, &output)
            sendResponseHead(head, .unknown, &output)
            abort(.malformedBody, &output)
            return
        case .stall(let duration)?:
            traceFault(.stall(duration), phase: .response, &output)
            state = .responseGated(.stalled, pending)
            arm(.stall, duration, &output)
            return
        case let fault?:
            guard inject(fault, phase: .response, &output) else { return }
        case nil:
            break
        }
        if let hold = responsePlan.hold {
            state = .responseGated(.held(hold), pending)
            startHold(hold, phase: .response, &output)
            return
        }
        continueResponse(pending, &output)
    }

    /// After a hold: delay, wait for the whole body when a JSON edit needs it, then open the gate.
    mutating func continueResponse(_ pending: PendingResponse, _ output: inout FlowOutput) {
        if responsePlan.delay > .zero {
            if case .responseGated(.delayed, _) = state {
            } else {
                state = .responseGated(.delayed, pending)
                arm(.delay, responsePlan.delay, &output)
                return
            }
        }
        state = .responseGated(.collecting, pending)
        if responsePlan.needsWholeBody, !pending.ended { return }
        openResponseGate(&output)
    }

    /// Sends the (rewritten) response head and whatever body waited, or the replacement response.
    mutating func openResponseGate(_ output: inout FlowOutput) {
        guard case .responseGated(_, let pending) = state else { return }
        let plan = responsePlan
        if let response = plan.respond {
            replaceResponse(with: response, behind: pending, &output)
            return
        }
        var edited = ResponseEditor.apply(plan, to: pending.head, replayedCookies: replayedCookies)
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
        output.trace(
            id, .responseDelivered, [.int("status", Int64(head.status)), .body("body", responseDigest.finish())])
        responseDelivered(&output)
        if pending.ended {
            output.append(.releaseUpstream(id))
            end(outcome, &output)
        } else {
            state = .draining(outcome)
        }
    }
}
