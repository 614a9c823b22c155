public import FaultlineCore
public import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace

/// Everything that happens to one flow, whatever protocol carried it: rule gates, holds, delays,
/// faults, duplicates, lineage steps and the flow's trace events. No I/O and no wire format.
///
/// # Theory of operation
///
/// The framing layer (HTTP/1 connection, HTTP/2 stream) creates a machine per request and feeds
/// it protocol-neutral events; the flow's upstream (a pooled connection, a stream, a replay
/// source) feeds it the response. Each input returns `FlowAction`s, every one tagged with the
/// flow's ID, for the framing, the upstream and the driver to carry out in order.
///
/// A decision is a question and its answer: `decide(question)` goes out, the flow waits in an
/// `awaiting…Decision` state, and the driver answers with `decided(_:)` before anything else
/// reaches the flow. What arrives meanwhile from the client or the upstream in the same read is
/// kept and taken up after the answer.
///
/// ```
///   start ─▶ deciding ─▶ requestHeld ─▶ requestDelayed ─▶ collectingRequest ─▶ forwarding
///     │         (body the rules read)  (hold)      (delay)     (request jsonSet)    │ upstream head
///     │                                                                               ▼
///     │                      responseGated (held, delayed, collecting, stalled) ◀── decide
///     │                                        │                                      │
///     └──────── answered (rule response) ──────┴────▶ streaming ─▶ draining ─▶ ended(outcome)
/// ```
///
/// Each state carries the data that exists only in it (FlowMachine+State.swift): the request
/// decision and its plan (`Decided`) from the answer on, the response plan and the gate's waiting
/// body (`PendingResponse`), then what the client was sent with the armed cut and the lineage's
/// body copy (`ResponseStream`). Request body bytes are independent of the state: they are kept
/// while a gate is closed (`pendingBody`), copied while the rules or a duplicate need them
/// (`collected`), and streamed once the upstream is asked for. `end(_:)` is the one place a flow
/// ends (`FlowOutcome`).
public struct FlowMachine {
    public let id: FlowID
    /// Set on a copy made by a `duplicate` rule: its response goes to no client.
    public let duplicateOf: FlowID?
    let environment: FlowEnvironment
    /// The request as it goes upstream (after routing and request rules).
    public internal(set) var request: FlowRequest
    var outbound: OutboundRequest
    var state: State
    /// The action array of an earlier input, emptied, for the next input to fill (`recycle`).
    var spareActions: [FlowAction] = []

    // Request side.
    var requestComplete = false
    var upstreamRequested = false
    var upstreamInfo: UpstreamConnectionInfo?
    var forwardedTraced = false
    /// The request went upstream once: lineage steps, observers and duplicates have run (a retry
    /// on a fresh connection traces `request.forwarded` again, and nothing else).
    var forwardedOnce = false
    /// Body bytes waiting behind a closed request gate, and the trailers after them.
    var pendingBody: [UInt8] = []
    var pendingTrailers: HTTPHeaders?
    /// A copy of the request body while the decision, a duplicate or a response rule needs it;
    /// nil once it outgrew the body limit (or when nobody needs it).
    var collected: [UInt8]?
    let requestDigest: BodyDigest
    var requestSummary: BodySummary?

    // Response side.
    let responseDigest: BodyDigest
    var armedTimers = FlowTimerSet()
    /// Copies of this request get its body as it arrives (`duplicateBody`).
    var streamingCopies = false
    var holdRegistered = false
    /// The exchange's bodies, when the trace is a capture.
    let capture: FlowCapture?

    /// A flow for a request head; `start()` gives its first actions (trace it, ask the rules, open
    /// an upstream). Made in place and started in place: the machine is large, and a copy of it
    /// costs a retain and a release per member (seen in the benchmark's profile).
    public init(id: FlowID, request: FlowRequest, environment: FlowEnvironment) {
        self.init(id: id, request: request, duplicateOf: nil, environment: environment)
    }

    /// A copy made by a `duplicate` rule: no rules apply to it, and its response is read and
    /// dropped (`response.discarded`). Its body is sent whole, or as the original's arrives.
    public init(id: FlowID, copying original: DuplicateRequest, environment: FlowEnvironment) {
        var plain = environment
        plain.rules = nil
        self.init(id: id, request: original.request, duplicateOf: original.original, environment: plain)
        outbound = original.outbound
        pendingBody = original.body
        requestComplete = !original.streamed
    }

    /// The flow's first actions. Call once, right after `init`.
    public mutating func start() -> [FlowAction] {
        var output = FlowOutput(reusing: &spareActions)
        if duplicateOf != nil {
            traceRequestReceived(&output)
            openUpstream(&output)
        } else {
            begin(&output)
        }
        return output.actions
    }

    init(id: FlowID, request: FlowRequest, duplicateOf: FlowID?, environment: FlowEnvironment) {
        self.id = id
        self.duplicateOf = duplicateOf
        self.environment = environment
        self.request = request
        self.outbound = OutboundRequest(
            method: request.method, target: request.outboundTarget, authority: request.authority,
            headers: request.headers, body: request.body, upgrade: request.kind == .upgrade,
            receivedProtocol: request.version.hasPrefix("HTTP/") ? String(request.version.dropFirst(5)) : "1.1")
        self.state = .forwarding(nil)
        self.requestDigest = environment.makeBodyDigest()
        self.responseDigest = environment.makeBodyDigest()
        self.capture = environment.capture.map { FlowCapture(limit: $0.bodyLimit) }
    }

    /// Hands back the array an input returned, once its actions are carried out, so the next
    /// input fills it instead of allocating one: a flow has half a dozen inputs or more. Optional;
    /// pass it with `consume`, or it is not the array's only reference and the machine's emptying
    /// it copies instead.
    public mutating func recycle(_ actions: consuming [FlowAction]) {
        var emptied = actions
        emptied.removeAll(keepingCapacity: true)
        spareActions = emptied
    }

    /// The first steps of an ordinary flow: without rules, straight upstream.
    private mutating func begin(_ output: inout FlowOutput) {
        guard let rules = environment.rules else {
            traceRequestReceived(&output)
            openUpstream(&output)
            return
        }
        if rules.needsRequestBody || rules.needsRequestBodyAtResponse, request.body.carriesBody {
            collected = []
        }
        if rules.needsRequestBody, request.body.carriesBody {
            state = .deciding  // decided by `requestBody` or `requestEnd`
            return
        }
        decideRequest(&output)
    }

    // MARK: State the framing layer reads

    /// True once the flow has ended (its last action was `.ended`).
    public var isEnded: Bool {
        if case .ended = state { return true }
        return false
    }

    /// True while a hold stops the flow (the framing treats a client EOF then as the client leaving).
    public var isHeld: Bool {
        switch state {
        case .requestHeld, .responseGated(_, .held, _): return true
        default: return false
        }
    }

    /// True once the client was sent a response head (an answer the flow made itself ends it at once).
    public var responseStarted: Bool {
        switch state {
        case .streaming, .draining: return true
        default: return false
        }
    }

    /// Request body bytes the flow keeps behind a closed gate; the framing stops reading the client
    /// when they pile up.
    public var bufferedRequestBytes: Int { pendingBody.count }

    /// Response body bytes waiting behind a closed response gate; the upstream's reads pause when
    /// they pile up past the body read limit (a held response keeps what a JSON edit may need).
    public var bufferedResponseBytes: Int {
        switch state {
        case .responseGated(_, .collecting, _): return 0
        case .responseGated(_, _, let pending): return pending.body.count
        default: return 0
        }
    }

    // MARK: Request input

    /// Request body bytes from the client.
    public mutating func requestBody(_ bytes: ArraySlice<UInt8>) -> [FlowAction] {
        guard !isEnded else { return [] }
        var output = FlowOutput(reusing: &spareActions)
        if collected != nil {
            if let limit = environment.rules?.bodyLimit, collected!.count + bytes.count <= limit {
                collected!.append(contentsOf: bytes)
            } else {
                let prefix = collected! + bytes
                collected = nil
                if decided?.plan.duplicate != nil { streamCopies(prefix: prefix, &output) }
            }
        } else if streamingCopies {
            output.append(.duplicateBody(id, bytes))
        }
        switch state {
        case .deciding:
            pendingBody.append(contentsOf: bytes)
            if collected == nil { decideRequest(&output) }
        case .awaitingRequestDecision, .following, .requestHeld, .requestDelayed:
            pendingBody.append(contentsOf: bytes)
        case .collectingRequest(var decided):
            pendingBody.append(contentsOf: bytes)
            if pendingBody.count > environment.rules?.bodyLimit ?? 0 {
                // Too large to edit: the edit is skipped and the body streams through unchanged.
                output.trace(id, .ruleSkipped, [.string("action", "rewrite"), .string("reason", Self.tooLargeToEdit)])
                decided.plan.rewrites = decided.plan.rewrites.map { $0.withoutJSONEdits }
                state = .collectingRequest(decided)
                openUpstream(&output)
            }
        case .forwarding, .awaitingResponseDecision, .responseGated, .streaming, .draining:
            if upstreamRequested, !requestPlan.replacesBody, requestSummary == nil { sendUpstream(bytes, &output) }
        case .stalled, .ended:
            break
        }
        return output.actions
    }

    /// The client's request is complete.
    public mutating func requestEnd(trailers: HTTPHeaders?) -> [FlowAction] {
        guard !isEnded else { return [] }
        var output = FlowOutput(reusing: &spareActions)
        if streamingCopies, !requestComplete { output.append(.duplicateEnd(id, complete: true)) }
        switch state {
        case .deciding:
            pendingTrailers = trailers
            requestComplete = true
            decideRequest(&output)
        case .awaitingRequestDecision, .following, .requestHeld, .requestDelayed:
            pendingTrailers = trailers
            requestComplete = true
        case .collectingRequest:
            pendingTrailers = trailers
            requestComplete = true
            openUpstream(&output)
        case .forwarding, .awaitingResponseDecision, .responseGated, .streaming, .draining:
            requestComplete = true
            finishRequest(trailers: trailers, &output)
        case .stalled, .ended:
            requestComplete = true
        }
        return output.actions
    }

    static let tooLargeToEdit = "the body is larger than the rules' body limit; it is sent unchanged"

    // MARK: Upstream side

    /// Asks for the upstream and sends what the request gate kept.
    mutating func openUpstream(_ output: inout FlowOutput) {
        state = .forwarding(decided)
        upstreamRequested = true
        output.append(.openUpstream(id, request.endpoint))
        let body = pendingBody
        pendingBody = []
        if let replacement = requestPlan.bodyReplacement(original: requestComplete ? body : nil) {
            outbound.body = .known(Int64(replacement.count))
            output.append(.sendRequestHead(id, outbound))
            if !replacement.isEmpty { sendUpstream(replacement[...], &output) }
            finishRequestIfComplete(&output)
            return
        }
        output.append(.sendRequestHead(id, outbound))
        if !body.isEmpty { sendUpstream(body[...], &output) }
        finishRequestIfComplete(&output)
    }

    /// With a replaced body the client's own body is read to its end; the replacement is complete
    /// as soon as it is sent.
    private mutating func finishRequestIfComplete(_ output: inout FlowOutput) {
        if requestComplete || requestPlan.replacesBody || !request.body.carriesBody {
            finishRequest(trailers: pendingTrailers, &output)
        }
    }

    mutating func sendUpstream(_ bytes: ArraySlice<UInt8>, _ output: inout FlowOutput) {
        requestDigest.update(bytes)
        capture?.request.append(bytes)
        output.append(.sendRequestBody(id, bytes))
    }

    /// The whole request is on its way (once; a replaced body is whole before the client's is);
    /// traced as forwarded once the upstream is connected.
    mutating func finishRequest(trailers: HTTPHeaders?, _ output: inout FlowOutput) {
        guard requestSummary == nil else { return }
        requestSummary = requestDigest.finish()
        output.append(.sendRequestEnd(id, trailers: trailers))
        traceForwardedIfReady(&output)
    }

    /// The upstream is ready (and, after a retry on a fresh connection, ready again).
    public mutating func upstreamConnected(_ info: UpstreamConnectionInfo) -> [FlowAction] {
        var output = FlowOutput(reusing: &spareActions)
        guard !isEnded else { return [] }
        if upstreamInfo != nil { forwardedTraced = false }
        upstreamInfo = info
        traceForwardedIfReady(&output)
        return output.actions
    }
}
