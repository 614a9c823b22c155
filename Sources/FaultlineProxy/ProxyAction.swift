public import FaultlineCore
public import FaultlineRules

/// What a proxy session asks its driver to do. The session never touches a socket; the server
/// carries these out in order and reports back through the session's input methods.
public enum ProxyAction: Sendable, Equatable {
    /// Queue bytes for the client.
    case writeToClient([UInt8])
    /// Queue bytes for the current upstream connection (only after `upstreamDidConnect`).
    case writeToUpstream([UInt8])
    /// Get a connection to the endpoint: from the pool unless `fresh`, otherwise a new one. Answered with
    /// `upstreamDidConnect` or `upstreamDidFailToConnect`.
    case connectUpstream(UpstreamEndpoint, fresh: Bool)
    /// The exchange is over and the upstream connection sits at a message boundary: pool it for reuse.
    case releaseUpstream
    /// Close the upstream connection (its framing is in doubt, or the exchange was aborted).
    case closeUpstream
    /// Send FIN to the upstream once queued bytes are out (a tunnel's client side reached EOF).
    case shutdownUpstreamWrite
    /// Send FIN to the client once queued bytes are out (a tunnel's upstream side reached EOF).
    case shutdownClientWrite
    /// Close the client connection, after queued bytes are written or at once.
    case closeClient(afterFlush: Bool)
    /// Arm (or re-arm) one of the session's timers; answered with `timerFired`.
    case setTimer(ProxyTimer, Duration)
    /// Disarm a timer; a disarmed timer never fires.
    case cancelTimer(ProxyTimer)
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
    /// Deliver copies of a request to its destination (a `duplicate` action).
    case duplicate(DuplicateRequest)
    /// Pace writes to one side, or stop pacing with nil.
    case throttle(ThrottleSide, bytesPerSecond: Int?)
    /// The client's bytes after `CONNECT` are a TLS ClientHello for a host to intercept: terminate
    /// TLS on the client connection and serve what it carries with a new session (this one is done).
    case interceptTLS(TLSInterception)
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

/// The side of a session a throttle paces.
public enum ThrottleSide: Sendable, Hashable {
    case client
    case upstream
}

/// A flow the session asks the driver to hold until released.
public struct HoldRequest: Sendable, Equatable {
    public let flow: FlowID
    public let name: String
    public let phase: RulePhase
    /// `GET http://host/path`, for people listing holds.
    public let summary: String
    public let releaseOn: EventReference?
}

/// Copies of a request for the driver to send, each as its own flow.
public struct DuplicateRequest: Sendable, Equatable {
    public let original: FlowID
    public let endpoint: UpstreamEndpoint
    /// The complete request as sent upstream (head and body, Content-Length framed).
    public let bytes: [UInt8]
    public let method: String
    public let url: String
    public let count: Int
    public let spacing: Duration
}

/// The timers a session uses. Each is armed at most once at a time.
public enum ProxyTimer: Sendable, Hashable {
    /// The upstream has not sent a response head in time.
    case responseHead
    /// A kept-alive client connection has been idle too long, or a client has not sent its
    /// ClientHello in time after its `CONNECT` was answered.
    case clientIdle
    /// A rule's `delay` (request or response) has passed.
    case flowDelay
    /// A held flow's deadline has passed.
    case holdDeadline
    /// A `stall` fault's deadline has passed.
    case stall
}
