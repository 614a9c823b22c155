public import FaultlineCore
import FaultlineHTTP1
public import FaultlineRules
public import FaultlineTrace

/// Collects the actions of one input.
struct FlowOutput {
    private(set) var actions: [FlowAction]

    /// Takes `spare`'s storage (the array the host handed back after the last input; see
    /// `FlowMachine.recycle`), or makes room for a typical input's actions at once: growing 1, 2,
    /// 4, 8 showed in the profile.
    init(reusing spare: inout [FlowAction]) {
        actions = []
        swap(&actions, &spare)
        if actions.capacity == 0 { actions.reserveCapacity(8) }
    }

    mutating func append(_ action: FlowAction) {
        actions.append(action)
    }

    mutating func append(contentsOf more: [FlowAction]) {
        actions.append(contentsOf: more)
    }

    mutating func trace(_ flow: FlowID, _ kind: TraceEventKind, _ fields: [TraceField]) {
        actions.append(.trace(flow, kind, fields))
    }
}

/// The flow's trace events that carry the request and response heads.
extension FlowMachine {
    /// `request.received`: the request as the client sent it; with a decision, also the role,
    /// lineage and presented credentials (fingerprints, by the trace writer).
    mutating func traceRequestReceived(routed: Bool = true, _ output: inout FlowOutput) {
        output.trace(
            id, .requestReceived,
            Self.requestReceivedFields(request, routed: routed, decision: decision, duplicateOf: duplicateOf))
    }

    /// The fields of `request.received`, also for the flows that never reach the core (`CONNECT`).
    public static func requestReceivedFields(
        _ request: FlowRequest, routed: Bool, decision: RequestDecision? = nil, duplicateOf: FlowID? = nil
    ) -> [TraceField] {
        var fields: [TraceField] = []
        // Room for every field a request with a decision has, so the array never grows.
        fields.reserveCapacity(12)
        fields.append(.string("method", request.method))
        fields.append(.target("url", request.url))
        if routed {
            fields.append(.string("host", request.endpoint.host))
            fields.append(.int("port", request.endpoint.port))
            if request.kind != .connect { fields.append(.target("path", request.path)) }
        }
        fields.append(.string("version", request.version))
        if let stream = request.stream { fields.append(.int("stream", stream)) }
        fields.append(.headers("headers", request.headers.map { (name: $0.name, value: $0.value) }))
        if let decision {
            fields.append(.string("role", decision.role))
            if let lineage = decision.lineage { fields.append(.string("lineage", lineage.description)) }
            if !decision.credentials.isEmpty {
                // "access=fp:…": the same fingerprints the redacted headers carry.
                fields.append(.strings("credentials", decision.credentials.map(\.traceText)))
            }
        }
        if let duplicateOf { fields.append(.int("duplicate_of", duplicateOf.rawValue)) }
        return fields
    }

    /// `response.delivered`, with `retry_after` when the answer is a 429 or a 503 that says when
    /// to come back (RFC 9110 §10.2.3, RFC 6585 §4): the value as sent, for the contract's
    /// retry-after-respected clause. Other statuses never look at the headers.
    func traceResponseDelivered(
        status: Int, headers: @autoclosure () -> HTTPHeaders, synthetic: Bool = false, body: BodySummary,
        _ output: inout FlowOutput
    ) {
        // One array literal: no growth on the common path (a 429 or 503 pays for its field).
        var fields: [TraceField] =
            synthetic
            ? [.int("status", status), .bool("synthetic", true), .body("body", body)]
            : [.int("status", status), .body("body", body)]
        if status == 429 || status == 503, let retryAfter = headers().first(name: "retry-after") {
            fields.append(.string("retry_after", retryAfter))
        }
        output.trace(id, .responseDelivered, fields)
    }

    func traceResponseReceived(_ head: HTTPResponseHead, _ output: inout FlowOutput) {
        var fields: [TraceField] = [
            .int("status", head.status),
            .string("reason", head.reason),
            .string("version", head.version.description),
            .headers("headers", head.headers.map { (name: $0.name, value: $0.value) }),
        ]
        if let lineage = capture?.issuingLineage { fields.append(.string("lineage", lineage.description)) }
        if let duplicateOf { fields.append(.int("duplicate_of", duplicateOf.rawValue)) }
        output.trace(id, .responseReceived, fields)
    }
}

extension TraceEventKind {
    public static let ruleFired: TraceEventKind = "rule.fired"
    /// A rule's action could not apply to this flow (a JSON edit of a body over the limit).
    public static let ruleSkipped: TraceEventKind = "rule.skipped"
    public static let holdStarted: TraceEventKind = "hold.started"
    public static let holdEnded: TraceEventKind = "hold.ended"
    public static let faultInjected: TraceEventKind = "fault.injected"
    public static let duplicateScheduled: TraceEventKind = "duplicate.scheduled"
    /// A flow ended before its response was delivered because the client went away.
    public static let flowAborted: TraceEventKind = "flow.aborted"
    /// The response to a proxy-made copy of a request, read and dropped.
    public static let responseDiscarded: TraceEventKind = "response.discarded"
}
