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
}

/// The timers a session uses. Each is armed at most once at a time.
public enum ProxyTimer: Sendable, Hashable {
    /// The upstream has not sent a response head in time.
    case responseHead
    /// A kept-alive client connection has been idle too long.
    case clientIdle
}
