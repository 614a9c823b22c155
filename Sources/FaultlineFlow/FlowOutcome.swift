/// How a flow ended: every flow ends exactly once, in one of these ways, and `FlowMachine.end`
/// is the one place that decides it.
public enum FlowOutcome: String, Sendable, Equatable {
    /// The upstream's response was delivered whole.
    case finished
    /// The proxy answered without (or instead of) the upstream: a rule's response, a hold
    /// released with a status.
    case answered
    /// No response could be had from the upstream: the proxy answered 502 or 504.
    case failed
    /// The request was refused as malformed or unroutable: the proxy answered 4xx/5xx and the
    /// client connection closes.
    case refused
    /// A rule broke the transport (reset, close, stall, cut) or failed a hold.
    case aborted
    /// The upstream broke in the middle of the response: the client sees a cut message.
    case upstreamBroke = "upstream-broke"
    /// The client went away before its response was delivered.
    case clientGone = "client-gone"
    /// The upstream agreed to switch protocols (101): the connection is a tunnel now.
    case tunnelled
}

/// The timers of one flow; each kind is armed at most once at a time per flow.
public enum FlowTimer: String, Sendable, Hashable, CaseIterable {
    /// The upstream has not sent a response head in time.
    case responseHead
    /// A rule's `delay` (request or response) has passed.
    case delay
    /// A held flow's deadline has passed.
    case holdDeadline
    /// A `stall` fault's deadline has passed.
    case stall
}

/// How the flow core breaks the client side of a flow (a transport fault, a cut response). On
/// HTTP/1 this is the connection; on HTTP/2 the stream.
public enum ClientBreak: Sendable, Equatable {
    /// Reset at once (TCP RST; RST_STREAM).
    case reset
    /// Close at once, dropping what is queued.
    case close
    /// Close once what is queued is written: the message stops short of what its framing promised.
    case closeAfterFlush
    /// Send a body the framing cannot parse (a chunk-size line that is not hex, RFC 9112 §7.1),
    /// then close.
    case malformedBody
}

/// Who made the response a flow sends to its client.
public enum ResponseSource: Sendable, Equatable {
    /// The upstream (possibly rewritten by rules).
    case upstream
    /// A rule, or a hold released with a status: the request body still unread may be drained.
    case rule
    /// The proxy, for an error (502, 504, 400...).
    case proxyError
}
