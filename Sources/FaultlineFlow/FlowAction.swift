public import FaultlineCore
public import FaultlineHTTP1
public import FaultlineRules
public import FaultlineTrace

/// What the flow core asks for. Every action names its flow; the framing layer carries out the
/// client-side ones, the flow's upstream the upstream-side ones, and the driver the rest, in order.
public enum FlowAction: Sendable {
    // MARK: Upstream side
    /// Get an upstream for the flow at `endpoint` (a pooled connection, a stream, a replay source);
    /// answered with `upstreamConnected`, `upstreamFailed`.
    case openUpstream(FlowID, UpstreamEndpoint)
    /// The request head for the flow's upstream.
    case sendRequestHead(FlowID, OutboundRequest)
    case sendRequestBody(FlowID, ArraySlice<UInt8>)
    case sendRequestEnd(FlowID, trailers: HTTPHeaders?)
    /// The flow is done with its upstream, which may be reused if its framing is intact.
    case releaseUpstream(FlowID)
    /// The flow abandons its upstream (aborted, broken): close it.
    case closeUpstream(FlowID)

    // MARK: Client side
    /// A 1xx interim response (never 101).
    case sendInterim(FlowID, HTTPResponseHead)
    case sendResponseHead(FlowID, HTTPResponseHead, FlowBodyLength, ResponseSource)
    case sendResponseBody(FlowID, ArraySlice<UInt8>)
    case sendResponseEnd(FlowID, trailers: HTTPHeaders?)
    /// Break the client side; `code` is the HTTP/2 error code the fault's rule gave, for the
    /// RST_STREAM (nil: the framing picks the one that fits `ClientBreak`).
    case breakClient(FlowID, ClientBreak, code: HTTP2ErrorCode?)
    /// End the client connection gracefully (`fault: goaway`): on HTTP/2 a GOAWAY with `code`
    /// naming this flow's stream, or the one before it, as the last processed (RFC 9113 §6.8);
    /// on HTTP/1.1 the connection closes after this exchange.
    case goAwayClient(FlowID, code: HTTP2ErrorCode, thisStreamProcessed: Bool)

    // MARK: Time
    /// Arm (or re-arm) a timer of the flow; answered with `timerFired`.
    case armTimer(FlowID, FlowTimer, Duration)
    case cancelTimer(FlowID, FlowTimer)

    // MARK: Rules runtime, lineages and trace
    /// Register a held flow; answered with `holdEnded`.
    case hold(HoldRequest)
    /// Forget the flow's hold (it ended by its deadline, or the flow went away).
    case unregisterHold(FlowID)
    /// Something rules and holds can wait for happened.
    case observed(FlowID, ObservedEvent)
    /// A rule fired (holds can be released by `rule:<name>`).
    case ruleFired(FlowID, RuleID)
    /// Start copies of the request as flows of their own (a `duplicate` action). Boxed: the
    /// request is large and rare, and every action is as large as the largest case.
    indirect case duplicate(DuplicateRequest)
    /// More of the request body for the copies streamed alongside it (a body over the limit).
    case duplicateBody(FlowID, ArraySlice<UInt8>)
    /// The streamed copies' body is complete, or (`complete: false`) never will be: they end.
    case duplicateEnd(FlowID, complete: Bool)
    /// Pace one side of the flow, or stop pacing with nil.
    case throttle(FlowID, ThrottleSide, bytesPerSecond: Int?)
    /// Ask the rules; the driver answers with `FlowMachine.decided` before the flow's next input.
    /// Boxed, as the lineage step: the view is large, and every action is as large as the largest
    /// case.
    indirect case decide(FlowID, RuleQuestion)
    /// A step for the lineage tracker; the driver traces the events it answers with.
    indirect case stepLineage(FlowID, LineageStep)
    /// Write a trace event of the flow.
    case trace(FlowID, TraceEventKind, [TraceField])
    /// The flow is over; nothing more comes from or goes to it. Always its last action.
    case ended(FlowID, FlowOutcome)

    /// The flow the action belongs to.
    public var flow: FlowID {
        switch self {
        case .openUpstream(let flow, _), .sendRequestHead(let flow, _), .sendRequestBody(let flow, _),
            .sendRequestEnd(let flow, _), .releaseUpstream(let flow), .closeUpstream(let flow),
            .sendInterim(let flow, _), .sendResponseHead(let flow, _, _, _), .sendResponseBody(let flow, _),
            .sendResponseEnd(let flow, _), .breakClient(let flow, _, _), .goAwayClient(let flow, _, _),
            .armTimer(let flow, _, _),
            .cancelTimer(let flow, _), .unregisterHold(let flow), .observed(let flow, _), .ruleFired(let flow, _),
            .throttle(let flow, _, _), .decide(let flow, _), .stepLineage(let flow, _), .trace(let flow, _, _),
            .ended(let flow, _),
            .duplicateBody(let flow, _), .duplicateEnd(let flow, _):
            return flow
        case .hold(let request): return request.flow
        case .duplicate(let request): return request.original
        }
    }
}

/// The request head a flow sends upstream: end-to-end fields only in spirit (the upstream codec
/// drops hop-by-hop fields and adds its own framing), after request rules edited it.
public struct OutboundRequest: Sendable, Equatable {
    public var method: String
    /// Origin-form target (path and query) or `*`.
    public var target: String
    /// `Host` / `:authority`.
    public var authority: String
    public var headers: HTTPHeaders
    public var body: FlowBodyLength
    /// A WebSocket upgrade: the codec asks the upstream to switch (RFC 9110 §7.8).
    public var upgrade: Bool
    /// The protocol the proxy received the request with, as `Via` names it (RFC 9110 §7.6.3):
    /// "1.1", "1.0", "2".
    public var receivedProtocol: String
}

/// The side of a flow a throttle paces.
public enum ThrottleSide: Sendable, Hashable {
    case client
    case upstream
}

/// A flow the core asks the driver to hold until released.
public struct HoldRequest: Sendable, Equatable {
    public let flow: FlowID
    public let name: String
    public let phase: RulePhase
    /// `GET http://host/path`, for people listing holds.
    public let summary: String
    public let releaseOn: EventReference?
}

/// Copies of a request for the driver to start, each as a flow of its own.
public struct DuplicateRequest: Sendable, Equatable {
    public let original: FlowID
    /// The request as the original went upstream (after rules), with its body length known.
    public let request: FlowRequest
    public let outbound: OutboundRequest
    /// The complete body, or with `streamed` its first bytes (the rest follows as
    /// `duplicateBody` and `duplicateEnd`).
    public let body: [UInt8]
    public let count: Int
    public let spacing: Duration
    /// The body is over the rules' limit, so the copies start at once and get it as it arrives.
    public let streamed: Bool
}

/// How a hold ended and what ended it, for the flow and for `hold.ended`.
public struct HoldEnding: Sendable, Equatable {
    /// What ended a hold.
    public enum Cause: Sendable, Equatable {
        /// The control API, the command line or the testing library.
        case control
        /// The event it waited for (`release_on`), as written.
        case event(String)
        /// The exploration scheduler let the flow go (`faultline explore`).
        case explorer
    }

    public var outcome: HoldOutcome
    public var cause: Cause

    public init(_ outcome: HoldOutcome, by cause: Cause) {
        self.outcome = outcome
        self.cause = cause
    }
}
