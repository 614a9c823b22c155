public import FaultlineCore
public import FaultlineFlow
public import FaultlineHTTP1
public import FaultlineTrace

/// A flow upstream that answers from a recording instead of the network (`faultline replay
/// serve`). The server hands it each complete request a flow sends upstream; the flow, its rules
/// and its trace cannot tell the answer from an origin's.
///
/// Called on event-loop threads; an implementation is thread-safe. `answer` may be called at once
/// or later (an answer held back to reproduce a recorded order), from any thread, exactly once.
public protocol ReplayResponder: AnyObject, Sendable {
    /// What `request.forwarded` names as the upstream (`replay`).
    var upstreamName: String { get }
    /// Answers `request`. Returns what the answer waits for when it cannot come yet (how long
    /// before the caller calls `expire`, and events to trace now), or nil when the answer has
    /// been given or will come without a deadline.
    func respond(to request: UpstreamRequest, answer: @escaping @Sendable (ReplayAnswer) -> Void) -> ReplayWait?
    /// The deadline returned by `respond` passed without an answer: answer now, and say why.
    func expire(_ flow: FlowID)
    /// The flow is done with its upstream: its response reached the client (`delivered`) or the
    /// flow ended otherwise.
    func finished(_ flow: FlowID, delivered: Bool)
    /// True when traffic the recording cannot answer may reach the network: unmatched requests
    /// (answered `.forward`) and tunnels (`CONNECT` without interception). False: nothing does.
    var allowsNetwork: Bool { get }
}

/// A request as it reached the replayed upstream: where it was going and what it said.
public struct UpstreamRequest: Sendable {
    public var flow: FlowID
    public var endpoint: UpstreamEndpoint
    public var head: HTTPRequestHead
    /// The body (the first `limit` bytes of it when it was longer) and its whole length.
    public var body: [UInt8]
    public var bodyLength: Int64

    public init(flow: FlowID, endpoint: UpstreamEndpoint, head: HTTPRequestHead, body: [UInt8], bodyLength: Int64) {
        self.flow = flow
        self.endpoint = endpoint
        self.head = head
        self.body = body
        self.bodyLength = bodyLength
    }
}

/// What the replayed upstream says.
public enum ReplayAnswer: Sendable {
    /// A recorded response (its credentials already replaced), with trace events to write first.
    case response(HTTPResponseHead, body: [UInt8], trailers: HTTPHeaders?, trace: [ReplayTraceEvent])
    /// Nothing recorded answers it: the flow gets `failure` as it would for an unreachable upstream.
    case unavailable(UpstreamFailure, trace: [ReplayTraceEvent])
    /// Send it to the real upstream (`--unmatched forward`).
    case forward(trace: [ReplayTraceEvent])
}

/// An answer that is not given yet (`--order recorded`): the deadline after which the caller
/// calls `expire`, and the events to trace at once (`replay.waiting`: what it waits for).
public struct ReplayWait: Sendable {
    public var deadline: Duration
    public var trace: [ReplayTraceEvent]

    public init(deadline: Duration, trace: [ReplayTraceEvent]) {
        self.deadline = deadline
        self.trace = trace
    }
}

/// A trace event of the replay (`replay.matched`, `replay.unmatched`, `replay.diverged`...), written
/// by the caller on the flow's thread, so that a responder never records under another lock.
public struct ReplayTraceEvent: Sendable {
    public var kind: TraceEventKind
    public var fields: [TraceField]

    public init(_ kind: TraceEventKind, _ fields: [TraceField]) {
        self.kind = kind
        self.fields = fields
    }
}
