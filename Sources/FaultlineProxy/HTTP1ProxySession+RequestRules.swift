import FaultlineCore
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace

/// Request-phase rules: the session reads what the decision needs (the head, and the body when a
/// rule or the auth profile looks at it), asks the `FlowPolicy`, and follows the resulting
/// `RequestPlan` through its gate: fault, synthetic answer, hold, delay, then upstream.
extension HTTP1ProxySession {
    /// Starts the decision for a new exchange: now, or once the body the decision needs has arrived.
    mutating func beginRequestDecision(_ output: inout SessionOutput) {
        guard let exchange, let policy = configuration.policy else { return }
        exchange.requestGate = .awaitingDecision
        if policy.needsRequestBody, exchange.requestFraming.carriesBody {
            exchange.collectedBody = []
            return  // decided by `collectRequestBody` or `finishRequestBody`
        }
        decideRequest(&output)
    }

    /// Keeps a copy of request body bytes while a decision or a duplicate needs them; decides early
    /// when the body outgrows the policy's limit (it then streams unread).
    mutating func collectRequestBody(_ bytes: ArraySlice<UInt8>, _ output: inout SessionOutput) {
        guard let exchange, exchange.collectedBody != nil, let policy = configuration.policy else { return }
        if exchange.collectedBody!.count + bytes.count <= policy.bodyLimit {
            exchange.collectedBody!.append(contentsOf: bytes)
            return
        }
        exchange.collectedBody = nil
        if exchange.requestGate == .awaitingDecision { decideRequest(&output) }
    }

    /// Classifies the request, evaluates request-phase rules and follows the plan.
    mutating func decideRequest(_ output: inout SessionOutput) {
        guard let exchange, let policy = configuration.policy else { return }
        let body = exchange.requestComplete ? exchange.collectedBody : nil
        let decision = policy.decideRequest(flowView(of: exchange, body: body))
        exchange.decision = decision
        exchange.requestPlan = RequestPlan(decision.fired)
        if exchange.requestPlan.duplicate == nil { exchange.collectedBody = nil }
        traceRequestReceived(exchange, decision: decision)
        traceRulesFired(decision.fired, flow: exchange.flow.id, &output)
        observe(.flow(role: decision.role, stage: .received, lineage: decision.lineage), &output)
        applyRequestPlan(&output)
    }

    /// A fault comes first, then a hold; `continueRequest` does the rest once it is released.
    private mutating func applyRequestPlan(_ output: inout SessionOutput) {
        guard let exchange else { return }
        let plan = exchange.requestPlan
        if let fault = plan.fault {
            injectRequestFault(fault, &output)
            return
        }
        if let hold = plan.hold {
            exchange.requestGate = .held
            startHold(hold, phase: .request, &output)
            return
        }
        continueRequest(&output)
    }

    /// After a hold: wait out the delay, then answer with the rule's response or connect upstream.
    mutating func continueRequest(_ output: inout SessionOutput) {
        guard let exchange else { return }
        let plan = exchange.requestPlan
        if plan.delay > .zero, exchange.requestGate != .delayed {
            exchange.requestGate = .delayed
            output.append(.setTimer(.flowDelay, plan.delay))
            return
        }
        if let response = plan.respond {
            answerWithoutUpstream(response, &output)
            return
        }
        exchange.requestGate = .open
        exchange.flow.phase = .connectingUpstream
        if let rate = plan.throttle { output.append(.throttle(.upstream, bytesPerSecond: rate)) }
        output.append(.connectUpstream(exchange.route.endpoint, fresh: false))
    }

    /// Bytes of request body the session reads and drops to keep a connection it answered itself.
    static let discardableBodyLimit: Int64 = 64 * 1024

    /// Answers the client with a rule's response; the upstream is never contacted. The rest of
    /// the request body, if small, is read and dropped so the connection stays usable.
    mutating func answerWithoutUpstream(_ response: SyntheticResponse, _ output: inout SessionOutput) {
        guard let exchange else { return }
        exchange.requestGate = .answered
        exchange.response = .complete
        exchange.collectedBody = nil
        exchange.pendingUpstreamBytes = []
        let bodyLeft: Bool
        switch exchange.requestFraming {
        case .none: bodyLeft = false
        case .contentLength(let length): bodyLeft = length > Self.discardableBodyLimit
        case .chunked, .closeDelimited, .tunnel: bodyLeft = true
        }
        let closing = (!exchange.requestComplete && bodyLeft) || exchange.closeClientAfter || clientReachedEOF
        exchange.closeClientAfter = closing
        output.writeToClient(response.encode(closing: closing, via: configuration.viaPseudonym))
        let digest = trace.makeBodyDigest()
        response.body.withUnsafeBytes { digest.update($0) }
        trace.record(
            .responseDelivered, connection: connectionID, flow: exchange.flow.id,
            [.int("status", response.status), .bool("synthetic", true), .body("body", digest.finish())])
        if let decision = exchange.decision {
            observe(.flow(role: decision.role, stage: .delivered, lineage: decision.lineage), &output)
        }
        if closing || exchange.requestComplete { finishAnsweredExchange(&output) }
    }

    /// Ends an exchange the session answered itself, once its request has been read (or at once
    /// when the connection closes anyway).
    mutating func finishAnsweredExchange(_ output: inout SessionOutput) {
        guard let exchange else { return }
        self.exchange = nil
        if exchange.closeClientAfter {
            close(&output, reason: "rule-answered")
            return
        }
        state = .idle
        output.append(.setTimer(.clientIdle, configuration.clientIdleTimeout))
        processClientInput(&output)
    }

    /// Registers a hold with the driver (and its deadline, when it has one).
    mutating func startHold(_ spec: HoldSpec, phase: RulePhase, _ output: inout SessionOutput) {
        guard let exchange else { return }
        let summary = "\(exchange.requestHead.method) \(exchange.route.url)"
        output.append(
            .hold(
                HoldRequest(
                    flow: exchange.flow.id, name: spec.name, phase: phase, summary: summary, releaseOn: spec.releaseOn)))
        if let timeout = spec.timeout { output.append(.setTimer(.holdDeadline, timeout)) }
        var fields: [TraceField] = [.string("name", spec.name), .string("phase", phase.rawValue)]
        if let releaseOn = spec.releaseOn { fields.append(.string("release_on", releaseOn.description)) }
        if let timeout = spec.timeout { fields.append(.double("timeout_s", timeout.inSeconds)) }
        trace.record(.holdStarted, connection: connectionID, flow: exchange.flow.id, fields)
    }

    /// What a rule can see of the exchange (the response part is filled in by the response phase).
    func flowView(of exchange: Exchange, body: [UInt8]?) -> FlowView {
        var view = FlowView(
            method: exchange.requestHead.method, scheme: exchange.route.endpoint.scheme,
            host: exchange.route.endpoint.host, port: exchange.route.endpoint.port, path: exchange.route.path,
            query: exchange.route.query,
            headers: exchange.requestHead.headers.map { (name: $0.name, value: $0.value) }, body: body)
        if let decision = exchange.decision {
            view.role = decision.role
            view.lineage = decision.lineage
        }
        return view
    }

    /// Reports that the flow reached a stage, when a rule condition or a hold waits for stages.
    func observe(_ event: ObservedEvent, _ output: inout SessionOutput) {
        guard configuration.policy?.wantsFlowEvents == true else { return }
        output.append(.observed(event))
    }

    func traceRulesFired(_ fired: [FiredRule], flow: FlowID, _ output: inout SessionOutput) {
        for rule in fired {
            var fields: [TraceField] = [
                .string("rule", rule.id.description), .string("file", rule.file), .string("phase", rule.phase.rawValue),
                .int("hit", rule.hit),
            ]
            if let transition = rule.transition {
                fields.append(.object("transition", [.string("from", transition.from), .string("to", transition.to)]))
            }
            trace.record(.ruleFired, connection: connectionID, flow: flow, fields)
            output.append(.ruleFired(rule.id))
        }
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

extension TraceEventKind {
    static let ruleFired: TraceEventKind = "rule.fired"
    static let holdStarted: TraceEventKind = "hold.started"
    static let holdEnded: TraceEventKind = "hold.ended"
    static let faultInjected: TraceEventKind = "fault.injected"
    static let duplicateSent: TraceEventKind = "duplicate.scheduled"
}
