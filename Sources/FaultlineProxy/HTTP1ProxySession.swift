public import FaultlineCore
import FaultlineHTTP1
public import FaultlineTrace

/// The proxy logic for one HTTP/1.1 client connection, with no I/O of its own.
///
/// # Theory of operation
///
/// The driver (the server module) feeds the session what happened on the client connection and on
/// the session's current upstream connection, and carries out the `ProxyAction`s each input returns.
///
/// ```
///            head              upstream connected           response end
///   idle ───────────▶ exchanging ──────────────────▶ ... ─────────────────▶ idle (keep-alive)
///    ▲  │                │   │ CONNECT ok / 101                          └──▶ closing (close)
///    │  │ EOF / error    │   └──────────────────▶ tunnelling ──both EOF──▶ closed
///    │  ▼                ▼ refusal, upstream failure
///    │ closing ◀─────────┘
///    └──────── (pipelined bytes wait in the decoder until the exchange ends)
/// ```
///
/// Requests are handled one at a time in arrival order; pipelined requests wait in the request
/// decoder until the exchange before them has ended (RFC 9112 §9.3.2 requires responses in order).
/// Bodies stream in both directions; the session re-frames them for the other side (a
/// close-delimited response becomes chunked for an HTTP/1.1 client). Every step is written to the
/// trace; values that carry credentials are fingerprinted by the trace writer.
public struct HTTP1ProxySession {
    enum State {
        /// Between exchanges: the next request head is awaited.
        case idle
        /// `exchange` holds the flow in progress.
        case exchanging
        /// `CONNECT` answered early: reading the client's first bytes (`clientHello`) to choose
        /// between terminating TLS and tunnelling.
        case awaitingClientHello
        /// `tunnel` relays bytes unchanged.
        case tunnelling
        /// A final answer was queued with a close; input is ignored.
        case closing
        case closed
    }

    public let connectionID: ConnectionID
    let configuration: ProxyConfiguration
    let trace: TraceRecorder
    let flowIDs: IDGenerator
    var state: State = .idle
    var requestDecoder: HTTP1RequestDecoder
    var exchange: Exchange?
    var tunnel: Tunnel?
    /// The bytes the client sent after an early-answered `CONNECT`, until they are classified.
    var clientHello: [UInt8] = []
    var clientReachedEOF = false
    /// Why the session ended, for the trace's `connection.closed` event.
    public internal(set) var closeReason: String?

    /// Creates the session of a newly accepted client connection.
    public init(connectionID: ConnectionID, configuration: ProxyConfiguration, trace: TraceRecorder, flowIDs: IDGenerator) {
        self.connectionID = connectionID
        self.configuration = configuration
        self.trace = trace
        self.flowIDs = flowIDs
        self.requestDecoder = HTTP1RequestDecoder(limits: configuration.limits)
    }

    /// Call once after creating the session: arms the idle timer for the first request.
    public mutating func start() -> [ProxyAction] {
        [.setTimer(.clientIdle, configuration.clientIdleTimeout)]
    }

    /// True while the session cannot use more client bytes (pipelined input piling up, upstream
    /// not connected yet, or closing). The driver stops reading the client meanwhile.
    public var wantsClientReadsPaused: Bool {
        switch state {
        case .idle, .tunnelling, .awaitingClientHello: return false
        case .closing, .closed: return true
        case .exchanging:
            guard let exchange else { return false }
            if exchange.requestComplete { return requestDecoder.bufferedByteCount > configuration.maximumPendingUpstreamBytes }
            return exchange.pendingUpstreamBytes.count > configuration.maximumPendingUpstreamBytes
        }
    }

    /// True once the session has nothing more to do and the driver may drop it.
    public var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    // MARK: Client input

    /// Bytes arrived from the client.
    public mutating func clientDidRead(_ bytes: UnsafeRawBufferPointer) -> [ProxyAction] {
        var output = SessionOutput()
        switch state {
        case .tunnelling:
            tunnel?.bytesFromClient += Int64(bytes.count)
            output.writeToUpstream(bytes)
        case .awaitingClientHello:
            receiveClientHelloBytes(bytes, &output)
        case .idle, .exchanging:
            requestDecoder.receive(bytes)
            processClientInput(&output)
        case .closing, .closed:
            break
        }
        return output.finish()
    }

    /// The client shut down its sending side (FIN). It may still read what we send.
    public mutating func clientDidReadEOF() -> [ProxyAction] {
        var output = SessionOutput()
        clientReachedEOF = true
        switch state {
        case .tunnelling:
            tunnel?.clientReachedEOF = true
            output.append(.shutdownUpstreamWrite)
            finishTunnelIfDone(&output)
        case .idle:
            requestDecoder.receiveEOF()
            processClientInput(&output)
            if case .idle = state { close(&output, reason: "client-closed") }
        case .exchanging:
            requestDecoder.receiveEOF()
            processClientInput(&output)
        case .awaitingClientHello:
            inspectClientHello(&output)
        case .closing, .closed:
            break
        }
        return output.finish()
    }

    /// The client connection is gone (closed or reset); nothing more can be sent to it.
    public mutating func clientDidClose() -> [ProxyAction] {
        var output = SessionOutput()
        switch state {
        case .exchanging, .awaitingClientHello:
            abortExchange(&output, reason: "client closed the connection")
        case .tunnelling:
            finishTunnel(&output, reason: "client-closed")
        case .idle, .closing, .closed:
            break
        }
        if closeReason == nil { closeReason = "client-closed" }
        state = .closed
        return output.finish()
    }

    // MARK: Upstream input

    /// The connection asked for with `connectUpstream` is ready.
    public mutating func upstreamDidConnect(_ info: UpstreamConnectionInfo) -> [ProxyAction] {
        var output = SessionOutput()
        if case .exchanging = state, exchange != nil {
            upstreamConnected(info, &output)
        } else {
            // The exchange ended while connecting (client went away): the connection is not needed.
            output.append(.closeUpstream)
        }
        return output.finish()
    }

    /// The connection asked for with `connectUpstream` could not be made.
    public mutating func upstreamDidFailToConnect(_ failure: UpstreamFailure) -> [ProxyAction] {
        var output = SessionOutput()
        if case .exchanging = state { failExchange(failure, &output) }
        return output.finish()
    }

    /// Bytes arrived from the upstream connection.
    public mutating func upstreamDidRead(_ bytes: UnsafeRawBufferPointer) -> [ProxyAction] {
        var output = SessionOutput()
        switch state {
        case .tunnelling:
            tunnel?.bytesFromUpstream += Int64(bytes.count)
            output.writeToClient(bytes)
        case .exchanging:
            exchange?.receivedResponseBytes = true
            exchange?.responseDecoder.receive(bytes)
            processUpstreamInput(&output)
        case .idle, .awaitingClientHello, .closing, .closed:
            break
        }
        return output.finish()
    }

    /// The upstream shut down its sending side.
    public mutating func upstreamDidReadEOF() -> [ProxyAction] {
        var output = SessionOutput()
        switch state {
        case .tunnelling:
            tunnel?.upstreamReachedEOF = true
            output.append(.shutdownClientWrite)
            finishTunnelIfDone(&output)
        case .exchanging:
            exchange?.responseDecoder.receiveEOF()
            processUpstreamInput(&output)
            upstreamEndedEarly(&output)
        case .idle, .awaitingClientHello, .closing, .closed:
            break
        }
        return output.finish()
    }

    /// The upstream connection is gone (reset, or closed after an error).
    public mutating func upstreamDidClose() -> [ProxyAction] {
        var output = SessionOutput()
        switch state {
        case .tunnelling:
            finishTunnel(&output, reason: "upstream-closed")
        case .exchanging:
            upstreamEndedEarly(&output)
        case .idle, .awaitingClientHello, .closing, .closed:
            break
        }
        return output.finish()
    }

    // MARK: Timers

    /// A timer armed with `setTimer` expired.
    public mutating func timerFired(_ timer: ProxyTimer) -> [ProxyAction] {
        var output = SessionOutput()
        switch (timer, state) {
        case (.clientIdle, .idle):
            close(&output, reason: "idle-timeout")
        case (.clientIdle, .awaitingClientHello):
            clientHelloTimerFired(&output)
        case (.responseHead, .exchanging):
            if let exchange, !exchange.responseStarted {
                failExchange(.responseTimeout(exchange.route.endpoint.description), &output)
            }
        case (.flowDelay, _), (.holdDeadline, _), (.stall, _):
            flowTimerFired(timer, &output)
        default:
            break
        }
        return output.finish()
    }

    // MARK: Shared steps

    /// Ends the session: queued bytes are flushed, then the client connection closes.
    mutating func close(_ output: inout SessionOutput, reason: String) {
        if closeReason == nil { closeReason = reason }
        state = .closing
        output.append(.cancelTimer(.clientIdle))
        output.append(.closeClient(afterFlush: true))
    }
}
