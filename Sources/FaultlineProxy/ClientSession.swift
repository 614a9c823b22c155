public import FaultlineCore
public import FaultlineFlow
import FaultlineHTTP1
public import FaultlineRules

/// What the server drives for one client connection, whatever protocol it speaks: HTTP/1.1
/// (`HTTP1ProxySession`) or HTTP/2 (one connection, a flow per stream). Inputs are what happened
/// on the client connection and on each flow's upstream; every one returns the `ProxyAction`s
/// to carry out in order. No I/O.
public protocol ClientSession {
    /// Call once, first: the actions to take before anything is read (an idle timer).
    mutating func start() -> [ProxyAction]
    mutating func clientDidRead(_ bytes: UnsafeRawBufferPointer) -> [ProxyAction]
    /// The client shut down its sending side (FIN, or TLS close_notify).
    mutating func clientDidReadEOF() -> [ProxyAction]
    /// The client connection is gone; nothing more can be sent to it.
    mutating func clientDidClose() -> [ProxyAction]
    /// The client read none of what waits for it for the send timeout (the driver's
    /// `--send-timeout`, as nginx's `send_timeout`); the driver closes the connection next. Every
    /// flow in flight ends (`flow.aborted`, reason `send-timeout`), and the session is closed
    /// with that reason unless it already had one.
    mutating func sendTimedOut() -> [ProxyAction]
    mutating func timerFired(_ timer: SessionTimer) -> [ProxyAction]
    mutating func holdEnded(flow id: FlowID, _ ending: HoldEnding) -> [ProxyAction]
    mutating func upstreamDidConnect(flow id: FlowID, _ info: UpstreamConnectionInfo) -> [ProxyAction]
    mutating func upstreamDidFailToConnect(flow id: FlowID, _ failure: UpstreamFailure) -> [ProxyAction]
    mutating func upstreamDidRead(flow id: FlowID, _ bytes: UnsafeRawBufferPointer) -> [ProxyAction]
    mutating func upstreamDidReadEOF(flow id: FlowID) -> [ProxyAction]
    mutating func upstreamDidClose(flow id: FlowID) -> [ProxyAction]
    /// The rules' answer to the `decide` action of `flow`, given before any other input.
    mutating func ruleDecided(flow id: FlowID, _ answer: RuleAnswer) -> [ProxyAction]
    /// The server is stopping (`ProxyServer.stop` with a grace period): the actions that end
    /// this connection. HTTP/2 ends gracefully (GOAWAY, the open streams finish, then the
    /// connection closes, RFC 9113 §6.8); HTTP/1.1 has no such ending and is closed at once. The
    /// driver bounds the wait and closes whatever is left at its deadline.
    mutating func shutDown() -> [ProxyAction]
    /// True while the session cannot use more client bytes; the driver stops reading the client.
    var wantsClientReadsPaused: Bool { get }
    /// True while `flow` cannot use more upstream bytes (its response waits behind a gate, or its
    /// client-side queue is full); the driver stops reading that flow's upstream only.
    func wantsUpstreamReadsPaused(flow id: FlowID) -> Bool
    /// Whether the driver stops reading the client while one flow's upstream has more queued than
    /// its high watermark: HTTP/1, whose connection carries that flow alone. An HTTP/2 session is
    /// told the backlog instead (``upstreamBacklogChanged(flow:bytes:)``) and stops that stream
    /// only, by withholding its flow-control credit (RFC 9113 §5.2.2).
    var pausesClientForUpstreamBacklog: Bool { get }
    /// `flow`'s upstream has `bytes` queued that its socket has not taken (socket buffer and
    /// pacer): told when a write takes the backlog over the driver's high watermark, and again
    /// when it is back under it. Only for sessions that do not pause the client for it.
    mutating func upstreamBacklogChanged(flow id: FlowID, bytes: Int) -> [ProxyAction]
    /// True once the session has nothing more to do.
    var isClosed: Bool { get }
    /// Why the session ended, for `connection.closed`.
    var closeReason: String? { get }
    /// Gives back buffer storage that past requests left empty, so an idle connection holds
    /// none. The driver calls it every few seconds on idle connections, not at every request's
    /// end, where the next request would only allocate it again.
    mutating func releaseIdleStorage()
}

extension ClientSession {
    /// Nothing to give back by default.
    public mutating func releaseIdleStorage() {}
}

extension HTTP1ProxySession: ClientSession {
    /// HTTP/1 serves one flow at a time: its pause is the connection's.
    public func wantsUpstreamReadsPaused(flow id: FlowID) -> Bool { wantsUpstreamReadsPaused }

    /// The client connection carries one flow: the driver stops reading it.
    public var pausesClientForUpstreamBacklog: Bool { true }

    public mutating func upstreamBacklogChanged(flow id: FlowID, bytes: Int) -> [ProxyAction] { [] }

    /// The request decoder's input buffer, which keeps its capacity between requests.
    public mutating func releaseIdleStorage() { requestDecoder.releaseIdleStorage() }
}
