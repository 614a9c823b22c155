public import FaultlineCore
public import FaultlineFlow
public import FaultlineHTTP1
public import FaultlineRules
public import FaultlineTrace

/// What a proxy session asks its driver to do. The session never touches a socket; the server
/// carries these out in order and reports back through the session's input methods. Everything
/// about an upstream names the flow it serves.
public enum ProxyAction: Sendable, Equatable {
    /// Queue bytes for the client.
    case writeToClient([UInt8])
    /// Queue bytes for the flow's upstream connection (only after `upstreamDidConnect`).
    case writeToUpstream(FlowID, [UInt8])
    /// Get a connection for the flow: from the pool unless `fresh`, otherwise a new one. Answered
    /// with `upstreamDidConnect` or `upstreamDidFailToConnect`. `http1Only`: the request needs
    /// HTTP/1.1 (a WebSocket upgrade, which HTTP/2 has no form for here), so ALPN offers only
    /// `http/1.1` and no pooled HTTP/2 connection is taken.
    case connectUpstream(FlowID, UpstreamEndpoint, fresh: Bool, http1Only: Bool = false)
    /// The flow is over and its upstream connection sits at a message boundary: pool it for reuse.
    case releaseUpstream(FlowID)
    /// Close the flow's upstream connection (its framing is in doubt, or the flow was aborted).
    case closeUpstream(FlowID)
    /// Send FIN to the flow's upstream once queued bytes are out (a tunnel's client side reached EOF).
    case shutdownUpstreamWrite(FlowID)
    /// Send FIN to the client once queued bytes are out (a tunnel's upstream side reached EOF).
    case shutdownClientWrite
    /// Close the client connection, after queued bytes are written or at once.
    case closeClient(afterFlush: Bool)
    /// Arm (or re-arm) a timer; answered with `timerFired`.
    case setTimer(SessionTimer, Duration)
    /// Disarm a timer; a disarmed timer never fires.
    case cancelTimer(SessionTimer)
    /// Reset the client connection (RST), a transport fault.
    case resetClient
    /// Register a held flow; answered with `holdEnded`.
    case hold(HoldRequest)
    /// Forget the hold of this flow (it ended by deadline or the flow went away).
    case unregisterHold(FlowID)
    /// Something rules and holds can wait for happened.
    case observed(ObservedEvent)
    /// A rule fired (holds can be released by `rule:<name>`).
    case ruleFired(RuleID)
    /// Start copies of a request as flows of their own (a `duplicate` action). Boxed, as the
    /// interception below: large and rare, and every action is as large as the largest case.
    indirect case duplicate(DuplicateRequest)
    /// More body for the copies of this flow that stream it (`DuplicateRequest.streamed`).
    case duplicateBody(FlowID, [UInt8])
    /// The streamed copies' body is complete, or never will be (`complete: false`).
    case duplicateEnd(FlowID, complete: Bool)
    /// Pace writes to one side of a flow, or stop pacing with nil.
    case throttle(FlowID, ThrottleSide, bytesPerSecond: Int?)
    /// Ask the rules for `flow` (`RuleQuestion`); answer with `ClientSession.ruleDecided` at once,
    /// before any other input of the session. A session's questions come after its other actions
    /// of the same input (`SessionOutput`).
    indirect case decide(FlowID, RuleQuestion)
    /// Record a trace event. A session's entries come before its other actions of the same input
    /// (`SessionOutput`), so the trace reads as it did when sessions recorded as they went.
    case trace(TraceEntry)
    /// Tell the lineage tracker a flow's step and trace what it answers, naming `connection`.
    indirect case stepLineage(FlowID, connection: ConnectionID?, LineageStep)
    /// The client's bytes after `CONNECT` are a TLS ClientHello for a host to intercept: terminate
    /// TLS on the client connection and serve what it carries with a new session (this one is done).
    indirect case interceptTLS(TLSInterception)
}

/// The timers a session asks for: the connection's own, and each flow's.
public enum SessionTimer: Sendable, Hashable {
    /// A kept-alive client connection has been idle too long (on HTTP/2 also: its streams only
    /// waited for the client's flow-control window), or a client has not sent its ClientHello
    /// in time after its `CONNECT` was answered.
    case clientIdle
    /// A request head (on HTTP/2, a header block: a HEADERS frame's payload and its CONTINUATION
    /// frames) has been arriving for longer than the header timeout
    /// (`ProxyConfiguration.headerTimeout`).
    case requestHead
    /// No byte of a request body has arrived for the body timeout (`ProxyConfiguration.bodyTimeout`).
    case requestBody
    /// No DATA of an HTTP/2 stream's request body has arrived for the body timeout
    /// (`ProxyConfiguration.bodyTimeout`): the `requestBody` of one stream.
    case streamBody(Int32)
    /// One of a flow's timers (`FlowTimer`).
    case flow(FlowID, FlowTimer)
    /// The next slice of an HTTP/2 stream's throttled response is due (`HTTP2StreamPacing`).
    case streamPacing(Int32)
}

extension SessionTimer {
    /// A body timer (`requestBody`, `streamBody`): it times the client's silence, so the driver
    /// starts it again rather than delivering it while it has stopped reading the client itself.
    public var timesRequestBody: Bool {
        switch self {
        case .requestBody, .streamBody: return true
        case .clientIdle, .requestHead, .flow, .streamPacing: return false
        }
    }
}

/// A `CONNECT` whose TLS the driver terminates: where it was going and what the client sent.
public struct TLSInterception: Sendable, Equatable {
    /// The `CONNECT` flow, which ends here; the requests inside are flows of their own.
    public let flow: FlowID
    /// The `CONNECT` target (scheme `tcp`); the upstream of the requests inside, over TLS.
    public let target: UpstreamEndpoint
    /// The SNI name of the ClientHello (RFC 6066 §3), nil if it sent none.
    public let serverName: String?
    /// The application protocols the client offered (RFC 7301), in its order.
    public let offeredALPN: [String]
    /// The client's bytes so far, starting with the ClientHello: feed them to the TLS server.
    public let clientBytes: [UInt8]
    /// The client already shut down its sending side.
    public let clientReachedEOF: Bool

    /// The host a minted certificate must name: the SNI name, else the `CONNECT` host.
    public var certificateHost: String { serverName ?? target.host }
}
