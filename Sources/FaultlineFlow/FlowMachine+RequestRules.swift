import FaultlineCore
import FaultlineHTTP1
public import FaultlineRules
import FaultlineTrace

/// Request-phase rules: the flow reads what the decision needs (the head, and the body when a rule
/// or the auth profile looks at it), asks the rules (`RuleQuestion.request`), and follows the
/// `RequestPlan` of the answer through its gate: fault, hold, delay, then a rule's response or the
/// (edited, routed) upstream request.
extension FlowMachine {
    /// Asks the rules to classify the request and evaluate the request phase; with nothing to
    /// decide, goes on at once.
    mutating func decideRequest(_ output: inout FlowOutput) {
        guard let rules = environment.rules else { return }
        guard rules.decidesRequests else { return follow(.untouched, &output) }
        state = .awaitingRequestDecision
        output.append(.decide(id, .request(flowView(body: requestComplete ? collected : nil))))
    }

    /// The rules' answer to this flow's question.
    public mutating func decided(_ answer: RuleAnswer) -> [FlowAction] {
        var output = FlowOutput(reusing: &spareActions)
        switch (answer, state) {
        case (.request(let decision), .awaitingRequestDecision):
            follow(decision, &output)
        case (.response(let decision), .awaitingResponseDecision(var decided, let awaited)):
            decided.firedRules += decision.fired.map(\.id)
            state = .forwarding(decided)
            follow(decision, awaited, &output)
        default:
            break  // the flow ended while the question was out (the client left)
        }
        return output.actions
    }

    /// Follows the request-phase decision: trace it, then the plan's gate.
    private mutating func follow(_ decision: RequestDecision, _ output: inout FlowOutput) {
        let decided = Decided(decision)
        let plan = decided.plan
        state = .following(decided)
        let keepsBody = environment.rules?.needsRequestBodyAtResponse ?? false
        if plan.duplicate == nil, !keepsBody, !plan.needsWholeBody {
            collected = nil
        }
        traceRequestReceived(&output)
        traceRulesFired(decision.fired, &output)
        observe(.received, &output)
        if plan.duplicate != nil, collected == nil, request.body.carriesBody {
            // The body outgrew the limit while the decision read it: everything so far waits here.
            streamCopies(prefix: pendingBody, &output)
        }
        if let fault = plan.fault, !inject(fault, phase: .request, &output) { return }
        applyRequestEdits(plan)
        if let hold = plan.hold {
            state = .requestHeld(decided, hold)
            startHold(hold, phase: .request, &output)
            return
        }
        continueRequest(&output)
    }

    /// After a hold: wait out the delay, then answer with the rule's response or go upstream.
    mutating func continueRequest(_ output: inout FlowOutput) {
        guard let decided else { return }
        let plan = decided.plan
        if plan.delay > .zero, !isRequestDelayed {
            state = .requestDelayed(decided)
            arm(.delay, plan.delay, &output)
            return
        }
        if let response = plan.respond {
            answer(with: response, &output)
            return
        }
        if let rate = plan.throttle { output.append(.throttle(id, .upstream, bytesPerSecond: rate)) }
        if plan.needsWholeBody, !requestComplete {
            state = .collectingRequest(decided)
            return
        }
        openUpstream(&output)
    }

    private var isRequestDelayed: Bool {
        if case .requestDelayed = state { return true }
        return false
    }

    /// Applies `route` and request `rewrite`s to what goes upstream (the trace's `request.received`
    /// keeps what the client sent; rules of the response phase see the edited request).
    private mutating func applyRequestEdits(_ plan: RequestPlan) {
        guard plan.route != nil || !plan.rewrites.isEmpty else { return }
        RequestEditor.apply(plan, to: &request, outbound: &outbound)
        capture?.requestEdited = true
    }

    /// Answers the client with a rule's (or a release override's) response; the upstream is never
    /// contacted.
    mutating func answer(with response: SyntheticResponse, _ output: inout FlowOutput) {
        pendingBody = []
        collected = nil
        sendSynthetic(response, source: .rule, &output)
        traceResponseDelivered(
            status: response.status, headers: response.head.headers, synthetic: true, body: responseDigest.finish(),
            &output)
        observe(.delivered, &output)
        end(.answered, &output)
    }

    /// Sends a complete response made by the proxy, framed by its length.
    mutating func sendSynthetic(_ response: SyntheticResponse, source: ResponseSource, _ output: inout FlowOutput) {
        let head = response.head
        output.append(.sendResponseHead(id, head, .known(Int64(response.body.count)), source))
        if !response.body.isEmpty {
            responseDigest.update(response.body)
            output.append(.sendResponseBody(id, response.body[...]))
        }
        output.append(.sendResponseEnd(id, trailers: nil))
    }

    /// Registers a hold with the driver (and its deadline, when it has one).
    mutating func startHold(_ spec: HoldSpec, phase: RulePhase, _ output: inout FlowOutput) {
        holdRegistered = true
        output.append(
            .hold(
                HoldRequest(
                    flow: id, name: spec.name, phase: phase, summary: "\(request.method) \(request.url)",
                    releaseOn: spec.releaseOn)))
        if let timeout = spec.timeout { arm(.holdDeadline, timeout, &output) }
        var fields: [TraceField] = [.string("name", spec.name), .string("phase", phase.rawValue)]
        if let releaseOn = spec.releaseOn { fields.append(.string("release_on", releaseOn.description)) }
        if let timeout = spec.timeout { fields.append(.double("timeout_s", timeout.inSeconds)) }
        output.trace(id, .holdStarted, fields)
    }

    /// What a rule can see of the flow (the response part is filled in by the response phase).
    func flowView(body: [UInt8]?) -> FlowView {
        var view = FlowView(
            method: request.method, scheme: request.endpoint.scheme, host: request.endpoint.host,
            port: request.endpoint.port, path: request.path, query: request.query,
            headers: request.headers.map { (name: $0.name, value: $0.value) }, body: body)
        if let decision {
            view.role = decision.role
            view.lineage = decision.lineage
        }
        return view
    }

    /// Reports that the flow reached a stage, when a rule condition or a hold waits for stages;
    /// its delivery is also each fired rule's `delivered:<rule>`.
    func observe(_ stage: FlowStage, _ output: inout FlowOutput) {
        guard environment.rules?.wantsFlowEvents == true, let decided else { return }
        let decision = decided.decision
        output.append(.observed(id, .flow(role: decision.role, stage: stage, lineage: decision.lineage)))
        guard stage == .delivered else { return }
        for rule in decided.firedRules {
            output.append(.observed(id, .ruleDelivered(rule, lineage: decision.lineage)))
        }
    }

    func traceRulesFired(_ fired: [FiredRule], _ output: inout FlowOutput) {
        for rule in fired {
            var fields: [TraceField] = [
                .string("rule", rule.id.description), .string("file", rule.file), .string("phase", rule.phase.rawValue),
                .int("hit", rule.hit),
            ]
            if let transition = rule.transition {
                fields.append(.object("transition", [.string("from", transition.from), .string("to", transition.to)]))
            }
            output.trace(id, .ruleFired, fields)
            output.append(.ruleFired(id, rule.id))
        }
    }

    /// Arms one of the flow's timers and remembers it, so the flow's end can cancel it.
    mutating func arm(_ timer: FlowTimer, _ delay: Duration, _ output: inout FlowOutput) {
        armedTimers.insert(timer)
        output.append(.armTimer(id, timer, delay))
    }

    mutating func cancel(_ timer: FlowTimer, _ output: inout FlowOutput) {
        guard armedTimers.remove(timer) else { return }
        output.append(.cancelTimer(id, timer))
    }
}
