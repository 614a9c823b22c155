import FaultlineConfig
import FaultlineCore
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace

/// Response-phase rules: at the upstream head the session evaluates response rules and follows the
/// `ResponsePlan` through the response gate: fault, hold, delay, whole-body collection for JSON
/// edits, then a replacement response or the rewritten upstream one. Body bytes that arrive while
/// the gate is closed wait in `heldResponseBody` (upstream reads pause when they pile up).
extension HTTP1ProxySession {
    /// Upstream bytes behind a closed response gate beyond which upstream reads pause: the body
    /// read limit, so a held response keeps what a JSON edit after its release may read.
    static let heldResponseLimit = BodyReadLimit.bytes

    /// True while the session cannot use more upstream bytes (a held or delayed response piling up).
    public var wantsUpstreamReadsPaused: Bool {
        guard case .exchanging = state, let exchange else { return false }
        switch exchange.responseGate {
        case .open, .replaced, .collecting: return false
        case .held, .delayed, .stalled: return exchange.heldResponseBody.count > Self.heldResponseLimit
        }
    }

    /// The request is on its way upstream: lineage bookkeeping, `forwarded` observers, duplicates.
    func requestForwardedUnderRules(
        _ exchange: Exchange, decision: FlowPolicy.RequestDecision, _ output: inout SessionOutput
    ) {
        if let tracker = decision.tracker {
            traceLineageEvents(tracker.requestSent(role: decision.role, credentials: decision.credentials), exchange)
        }
        observe(.flow(role: decision.role, stage: .forwarded, lineage: decision.lineage), &output)
        if exchange.requestPlan.duplicate?.timing == .beforeResponse { sendDuplicates(exchange, &output) }
    }

    /// The upstream response head arrived on a flow that has a decision: evaluate response rules.
    mutating func decideResponse(_ head: HTTPResponseHead, _ output: inout SessionOutput) {
        guard let exchange, let policy = configuration.policy else { return }
        output.append(.cancelTimer(.responseHead))
        exchange.responseHead = head
        exchange.flow.phase = .streamingResponse
        traceResponseReceived(head, flow: exchange.flow.id)
        if policy.engine.replaysCookies {
            policy.cookies.remember(setCookieValues: head.headers.values(name: "set-cookie"))
        }
        var fired: [FiredRule] = []
        if policy.engine.hasRules(in: .response) {
            var view = flowView(of: exchange, body: nil)
            view.status = head.status
            view.responseHeaders = head.headers.map { (name: $0.name, value: $0.value) }
            fired = policy.engine.evaluate(view, phase: .response)
        }
        exchange.responsePlan = ResponsePlan(fired)
        exchange.pendingResponseHead = head
        exchange.responseGate = .held  // closed until `continueResponse` opens it
        if let decision = exchange.decision, decision.role != FlowRole.business, decision.tracker != nil {
            exchange.responseTee = []
        }
        let decision = exchange.decision
        traceRulesFired(fired, flow: exchange.flow.id, &output)
        if let decision {
            observe(.flow(role: decision.role, stage: .responded, lineage: decision.lineage), &output)
        }
        let plan = exchange.responsePlan
        switch plan.fault {
        case .closeMidBody(let bytes)?:
            armCut(after: bytes, reset: true, kind: "close-mid-body")
        case .truncate(let bytes)?:
            armCut(after: bytes, reset: false, kind: "truncate")
        case let fault?:
            injectResponseFault(fault, &output)
            return
        case nil:
            break
        }
        if let hold = plan.hold {
            startHold(hold, phase: .response, &output)
            return
        }
        continueResponse(&output)
    }

    /// After a hold: delay, wait for the whole body when a JSON edit needs it, then open the gate.
    mutating func continueResponse(_ output: inout SessionOutput) {
        guard let exchange else { return }
        let plan = exchange.responsePlan
        if plan.delay > .zero, exchange.responseGate != .delayed {
            exchange.responseGate = .delayed
            output.append(.setTimer(.flowDelay, plan.delay))
            return
        }
        if plan.needsWholeBody, !exchange.upstreamEnded {
            exchange.responseGate = .collecting
            return
        }
        openResponseGate(&output)
    }

    /// Sends the (rewritten) response head and whatever body waited, or the replacement response.
    mutating func openResponseGate(_ output: inout SessionOutput) {
        guard let exchange, let upstreamHead = exchange.pendingResponseHead else { return }
        let plan = exchange.responsePlan
        if plan.isEmpty, exchange.heldResponseBody.isEmpty, !exchange.upstreamEnded {
            // No response rule fired: the head goes out as it came (the common case).
            exchange.pendingResponseHead = nil
            exchange.responseGate = .open
            relayResponseHead(upstreamHead, &output)
            return
        }
        if let response = plan.respond {
            replaceResponse(with: response, &output)
            return
        }
        var edited = ResponseEditor.apply(plan, to: upstreamHead, cookies: configuration.policy?.cookies)
        var replacement: [UInt8]? = edited.body
        if replacement == nil, plan.needsWholeBody {
            replacement = ResponseEditor.applyJSONEdits(plan, to: exchange.heldResponseBody)
        }
        exchange.pendingResponseHead = nil
        if let replacement {
            edited.head.headers.remove(name: "content-length")
            edited.head.headers.remove(name: "transfer-encoding")
            sendReplacement(head: edited.head, body: replacement, &output)
            return
        }
        exchange.responseGate = .open
        let held = exchange.heldResponseBody
        exchange.heldResponseBody = []
        relayResponseHead(edited.head, &output)
        if let rate = plan.throttle { output.append(.throttle(.client, bytesPerSecond: rate)) }
        if !held.isEmpty { relayResponseBody(held[...], &output) }
        if let current = self.exchange, current.upstreamEnded, current.responseGate == .open {
            finishResponse(trailers: current.upstreamTrailers, &output)
        }
    }

    /// Upstream body bytes for a flow under rules: relayed, held behind the gate, or dropped.
    mutating func receiveResponseBodyUnderRules(_ bytes: ArraySlice<UInt8>, _ output: inout SessionOutput) {
        guard let exchange else { return }
        switch exchange.responseGate {
        case .open:
            relayResponseBody(bytes, &output)
        case .replaced:
            break
        case .collecting:
            exchange.heldResponseBody.append(contentsOf: bytes)
            if exchange.heldResponseBody.count > (configuration.policy?.bodyLimit ?? 0) {
                // Too large to edit: the JSON edit is skipped and the body streams through unchanged.
                self.exchange?.responsePlan.rewrites = exchange.responsePlan.rewrites.map { rewrite in
                    var rewrite = rewrite
                    rewrite.jsonSet = []
                    return rewrite
                }
                openResponseGate(&output)
            }
        case .held, .delayed, .stalled:
            exchange.heldResponseBody.append(contentsOf: bytes)
        }
    }

    /// The upstream response ended on a flow under rules.
    mutating func endResponseUnderRules(trailers: HTTPHeaders?, _ output: inout SessionOutput) {
        guard let exchange else { return }
        switch exchange.responseGate {
        case .open, .replaced:
            finishResponse(trailers: trailers, &output)
        case .collecting:
            exchange.upstreamEnded = true
            exchange.upstreamTrailers = trailers
            openResponseGate(&output)
        case .held, .delayed, .stalled:
            exchange.upstreamEnded = true
            exchange.upstreamTrailers = trailers
        }
    }

    /// Replaces the upstream response with a rule's (or a release override's) response; the rest
    /// of the upstream body is read and dropped so the connection can still be reused.
    mutating func replaceResponse(with response: SyntheticResponse, _ output: inout SessionOutput) {
        let head = response.head(closing: false, via: nil)
        sendReplacement(head: head, body: response.body, &output)
    }

    /// Sends `head` with `body` framed by Content-Length, then finishes once upstream is done.
    private mutating func sendReplacement(head: HTTPResponseHead, body: [UInt8], _ output: inout SessionOutput) {
        guard let exchange else { return }
        exchange.responseGate = .replaced
        exchange.heldResponseBody = []
        exchange.pendingResponseHead = nil
        relayResponseHead(head, framing: .contentLength(Int64(body.count)), &output)
        relayResponseBody(body[...], &output)
        if let current = self.exchange, current.upstreamEnded {
            finishResponse(trailers: nil, &output)
        }
    }

    /// The response reached the client: lineage bookkeeping, `delivered` observers, duplicates.
    func responseDeliveredUnderRules(_ exchange: Exchange, sentHead: HTTPResponseHead?, _ output: inout SessionOutput) {
        guard let decision = exchange.decision else { return }
        if let tracker = decision.tracker, let sentHead {
            let events = tracker.responseCompleted(
                role: decision.role, requestCredentials: decision.credentials, status: sentHead.status,
                headers: sentHead.headers.map { (name: $0.name, value: $0.value) }, body: exchange.responseTee)
            traceLineageEvents(events, exchange)
        }
        observe(.flow(role: decision.role, stage: .delivered, lineage: decision.lineage), &output)
        if exchange.requestPlan.duplicate?.timing == .afterResponse { sendDuplicates(exchange, &output) }
    }

    private func sendDuplicates(_ exchange: Exchange, _ output: inout SessionOutput) {
        guard let spec = exchange.requestPlan.duplicate else { return }
        guard exchange.collectedBody != nil || !exchange.requestFraming.carriesBody else {
            trace.record(
                .duplicateSent, connection: connectionID, flow: exchange.flow.id,
                [.int("count", 0), .string("skipped", "the request body is larger than the rules' body limit")])
            return
        }
        var head = exchange.outboundHead
        head.headers.remove(name: "content-length")
        head.headers.remove(name: "transfer-encoding")
        let body = exchange.collectedBody ?? []
        if !body.isEmpty { head.headers.add(name: "Content-Length", value: String(body.count)) }
        var bytes: [UInt8] = []
        HTTP1Encoder.encode(head, into: &bytes)
        bytes += body
        trace.record(
            .duplicateSent, connection: connectionID, flow: exchange.flow.id,
            [.int("count", spec.count), .double("spacing_s", spec.spacing.inSeconds), .string("timing", spec.timing.rawValue)])
        output.append(
            .duplicate(
                DuplicateRequest(
                    original: exchange.flow.id, endpoint: exchange.route.endpoint, bytes: bytes,
                    method: exchange.requestHead.method, url: exchange.route.url, count: spec.count,
                    spacing: spec.spacing)))
    }

    func traceLineageEvents(_ events: [LineageEvent], _ exchange: Exchange) {
        for event in events {
            trace.record(event.traceKind, connection: connectionID, flow: exchange.flow.id, event.traceFields)
        }
    }
}
