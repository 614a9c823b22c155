import FaultlineCore
public import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace

/// The response side: the upstream's head, body and end, relayed to the client as they come, or
/// (under response rules) through the response gate in FlowMachine+ResponseRules.swift.
extension FlowMachine {
    /// Traces `request.forwarded` once the whole request is on its way on a connected upstream,
    /// and starts waiting for the response head.
    mutating func traceForwardedIfReady(_ output: inout FlowOutput) {
        guard !forwardedTraced, let info = upstreamInfo, let summary = requestSummary else { return }
        forwardedTraced = true
        var fields: [TraceField] = [
            .int("upstream_conn", Int64(info.id.rawValue)), .string("upstream", info.remoteAddress),
            .bool("reused", info.reused), .body("body", summary),
        ]
        if info.applicationProtocol == "h2" { fields.append(.string("upstream_version", "HTTP/2")) }
        captureForwardedFields(into: &fields)
        if let duplicateOf { fields.append(.int("duplicate_of", duplicateOf.rawValue)) }
        output.trace(id, .requestForwarded, fields)
        if !responseStarted, !isResponseGated { arm(.responseHead, environment.responseTimeout, &output) }
        guard !forwardedOnce else { return }
        forwardedOnce = true
        guard let decision else { return }
        if decision.tracksLineage {
            output.append(.stepLineage(id, .requestSent(role: decision.role, credentials: decision.credentials)))
        }
        observe(.forwarded, &output)
        if requestPlan.duplicate?.timing == .beforeResponse { scheduleDuplicates(&output) }
    }

    private var isResponseGated: Bool {
        if case .responseGated = state { return true }
        return false
    }

    /// A 1xx interim response from the upstream (never 101, which is a final head here).
    public mutating func upstreamInterim(_ head: HTTPResponseHead) -> [FlowAction] {
        guard case .forwarding = state, duplicateOf == nil else { return [] }
        return [.sendInterim(id, head)]
    }

    /// The upstream's response head.
    public mutating func upstreamHead(_ head: HTTPResponseHead, length: FlowBodyLength) -> [FlowAction] {
        var output = FlowOutput(reusing: &spareActions)
        guard case .forwarding(let decided) = state else { return [] }
        cancel(.responseHead, &output)
        if let decided, let rules = environment.rules {
            let reservesLineage = reservesLineage(decided.decision, head)
            if rules.decidesResponses || reservesLineage {
                state = .awaitingResponseDecision(decided, AwaitedResponse(head: head, length: length))
                var view = flowView(body: requestComplete ? collected : nil)
                view.status = head.status
                view.responseHeaders = head.headers.map { (name: $0.name, value: $0.value) }
                output.append(
                    .decide(
                        id,
                        .response(
                            view, setCookies: head.headers.values(name: "set-cookie"),
                            reservesLineage: reservesLineage)))
                return output.actions
            }
        }
        receivedHead(head, length: length, decision: decided.map { _ in ResponseDecision(fired: []) }, &output)
        return output.actions
    }

    /// The upstream's head, with the response-phase decision when the flow has rules.
    mutating func receivedHead(
        _ head: HTTPResponseHead, length: FlowBodyLength, decision: ResponseDecision?, _ output: inout FlowOutput
    ) {
        captureResponseHead(head, reserved: decision?.reservedLineage)
        traceResponseReceived(head, &output)
        if let decision {
            follow(decision, head, length: length, &output)
        } else {
            sendResponseHead(head, length, &output)
        }
    }

    /// Follows the response-phase answer to the head that waited for it, then takes up the
    /// upstream inputs that arrived meanwhile, in order.
    mutating func follow(_ decision: ResponseDecision, _ awaited: AwaitedResponse, _ output: inout FlowOutput) {
        receivedHead(awaited.head, length: awaited.length, decision: decision, &output)
        for input in awaited.inputs {
            switch input {
            case .body(let bytes): output.append(contentsOf: upstreamBody(bytes))
            case .end(let trailers): output.append(contentsOf: upstreamEnd(trailers: trailers))
            case .broke(let code, let message): output.append(contentsOf: upstreamBroke(code: code, message: message))
            }
        }
    }

    /// Upstream response body bytes.
    public mutating func upstreamBody(_ bytes: ArraySlice<UInt8>) -> [FlowAction] {
        var output = FlowOutput(reusing: &spareActions)
        if case .awaitingResponseDecision(let decided, var awaited) = state {
            awaited.inputs.append(.body(bytes))
            state = .awaitingResponseDecision(decided, awaited)
            return []
        }
        captureResponseBody(bytes)
        switch state {
        case .streaming:
            relayBody(bytes, &output)
        case .responseGated(let decided, let gate, var pending):
            state = .forwarding(nil)  // let go of the state's copy, so the body grows in place
            pending.body.append(contentsOf: bytes)
            if case .collecting = gate, pending.body.count > (environment.rules?.bodyLimit ?? 0) {
                // Too large to edit: the JSON edit is skipped and the body streams through unchanged.
                output.trace(id, .ruleSkipped, [.string("action", "rewrite"), .string("reason", Self.tooLargeToEdit)])
                pending.plan.rewrites = pending.plan.rewrites.map { $0.withoutJSONEdits }
                state = .responseGated(decided, gate, pending)
                openResponseGate(&output)
            } else {
                state = .responseGated(decided, gate, pending)
            }
        case .draining, .deciding, .awaitingRequestDecision, .following, .awaitingResponseDecision, .requestHeld,
            .requestDelayed, .collectingRequest, .forwarding, .stalled, .ended:
            break
        }
        return output.actions
    }

    /// The upstream's response is complete.
    public mutating func upstreamEnd(trailers: HTTPHeaders?) -> [FlowAction] {
        var output = FlowOutput(reusing: &spareActions)
        if case .awaitingResponseDecision(let decided, var awaited) = state {
            awaited.inputs.append(.end(trailers))
            state = .awaitingResponseDecision(decided, awaited)
            return []
        }
        switch state {
        case .streaming, .draining, .responseGated: traceCapturedResponse(trailers: trailers, &output)
        default: break
        }
        switch state {
        case .streaming:
            finishResponse(trailers: trailers, &output)
        case .draining(_, _, let outcome):
            output.append(.releaseUpstream(id))
            end(outcome, &output)
        case .responseGated(let decided, let gate, var pending):
            pending.ended = true
            pending.trailers = trailers
            state = .responseGated(decided, gate, pending)
            if case .collecting = gate { openResponseGate(&output) }
        case .deciding, .awaitingRequestDecision, .following, .awaitingResponseDecision, .requestHeld,
            .requestDelayed, .collectingRequest, .forwarding, .stalled, .ended:
            break
        }
        return output.actions
    }

    /// Sends a response head to the client (or, for a duplicate, to nobody) and starts streaming,
    /// with what the response rules armed for the body of the response behind the gate.
    mutating func sendResponseHead(
        _ head: HTTPResponseHead, _ length: FlowBodyLength, source: ResponseSource = .upstream,
        armed gated: PendingResponse? = nil, _ output: inout FlowOutput
    ) {
        state = .streaming(
            decided,
            ResponseStream(
                status: head.status, headers: head.headers, plan: gated?.$plan, cut: gated?.cut,
                tee: gated?.teesBody == true ? [] : nil))
        if duplicateOf == nil { output.append(.sendResponseHead(id, head, length, source)) }
        if let cut = gated?.cut, cut.remaining == 0 { cutResponse(cut, &output) }
    }

    /// Sends response body bytes to the client, honouring an armed cut fault.
    mutating func relayBody(_ bytes: ArraySlice<UInt8>, _ output: inout FlowOutput) {
        guard case .streaming(let decided, var stream) = state else { return }
        var bytes = bytes
        var reachedCut: ResponseCut?
        if stream.cut != nil || stream.tee != nil {
            // Let go of the state's copy first, so the tee's buffer grows in place.
            state = .forwarding(nil)
            if var cut = stream.cut {
                if bytes.count >= cut.remaining {
                    bytes = bytes.prefix(cut.remaining)
                    reachedCut = cut
                }
                cut.remaining -= bytes.count
                stream.cut = cut
            }
            if stream.tee != nil, let limit = environment.rules?.bodyLimit {
                if stream.tee!.count + bytes.count <= limit {
                    stream.tee!.append(contentsOf: bytes)
                } else {
                    stream.tee = nil
                }
            }
            state = .streaming(decided, stream)
        }
        responseDigest.update(bytes)
        if !bytes.isEmpty, duplicateOf == nil { output.append(.sendResponseBody(id, bytes)) }
        if let reachedCut { cutResponse(reachedCut, &output) }
    }

    /// The response is complete on the client side: trace it, step the lineage, end the flow.
    mutating func finishResponse(trailers: HTTPHeaders?, _ output: inout FlowOutput) {
        guard !isEnded else { return }
        let status = responseStream?.status ?? 0
        let summary = responseDigest.finish()
        if let duplicateOf {
            output.trace(
                id, .responseDiscarded,
                [.int("status", status), .int("length", summary.length), .int("duplicate_of", duplicateOf.rawValue)])
            output.append(.releaseUpstream(id))
            end(.finished, &output)
            return
        }
        output.append(.sendResponseEnd(id, trailers: trailers))
        traceResponseDelivered(
            status: Int(status), headers: responseStream?.headers ?? HTTPHeaders(), body: summary, &output)
        responseDelivered(&output)
        if request.kind == .upgrade, status == 101 {
            end(.tunnelled, &output)
            return
        }
        output.append(.releaseUpstream(id))
        end(.finished, &output)
    }

    /// The response reached the client: lineage bookkeeping, `delivered` observers, duplicates.
    mutating func responseDelivered(_ output: inout FlowOutput) {
        guard let decision else { return }
        if decision.tracksLineage, let stream = responseStream {
            output.append(
                .stepLineage(
                    id,
                    .responseCompleted(
                        role: decision.role, credentials: decision.credentials, status: stream.status,
                        headers: stream.headers.map { (name: $0.name, value: $0.value) },
                        body: stream.tee, reserved: capture?.reserved)))
        }
        observe(.delivered, &output)
        if requestPlan.duplicate?.timing == .afterResponse { scheduleDuplicates(&output) }
    }

    /// Starts the copies of a `duplicate` action as flows of their own, with the body as sent.
    mutating func scheduleDuplicates(_ output: inout FlowOutput) {
        guard let spec = requestPlan.duplicate, !streamingCopies else { return }
        guard collected != nil || !request.body.carriesBody else {
            // Copies need the whole body, and this one outgrew the limit: said in the trace and,
            // by the driver, on the console.
            output.trace(
                id, .duplicateScheduled,
                [
                    .int("count", 0),
                    .string(
                        "skipped",
                        "the request body is over the rules' body limit of \(environment.rules?.bodyLimit ?? BodyReadLimit.bytes) bytes"
                    ),
                ])
            return
        }
        let body = requestPlan.bodyReplacement(original: collected ?? []) ?? collected ?? []
        var outbound = self.outbound
        outbound.body = body.isEmpty ? .none : .known(Int64(body.count))
        var copy = request
        copy.body = outbound.body
        output.trace(
            id, .duplicateScheduled,
            [
                .int("count", spec.count), .double("spacing_s", spec.spacing.inSeconds),
                .string("timing", spec.timing.rawValue),
            ])
        output.append(
            .duplicate(
                DuplicateRequest(
                    original: id, request: copy, outbound: outbound, body: body, count: spec.count,
                    spacing: spec.spacing,
                    streamed: false)))
    }

    /// The body is over the limit, too large to keep for copies made later: the copies start now
    /// and get the body as it arrives, all at once (their `timing` and `spacing` cannot apply,
    /// which the trace says).
    mutating func streamCopies(prefix: [UInt8], _ output: inout FlowOutput) {
        guard let spec = requestPlan.duplicate, !streamingCopies else { return }
        streamingCopies = true
        output.trace(
            id, .duplicateScheduled,
            [
                .int("count", spec.count), .double("spacing_s", 0), .string("timing", "streamed"),
                .string(
                    "reason",
                    "the request body is over the rules' body limit, so the copies get it as it arrives, at once"),
            ])
        output.append(
            .duplicate(
                DuplicateRequest(
                    original: id, request: request, outbound: outbound, body: prefix, count: spec.count, spacing: .zero,
                    streamed: true)))
        if requestComplete { output.append(.duplicateEnd(id, complete: true)) }
    }
}
