public import FaultlineCore
public import FaultlineFlow
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace

/// One HTTP/1.1 client connection, with no I/O of its own: the framing layer between the client's
/// bytes and the flow core.
///
/// # Theory of operation
///
/// The driver (the server module) feeds the session what happened on the client connection and on
/// each flow's upstream connection, and carries out the `ProxyAction`s each input returns.
///
/// ```
///            head                 flow ended (keep-alive)
///   idle ───────────▶ exchanging ────────────────────────▶ idle   (or draining an unread body first)
///    ▲  │               │   │  │ 101
///    │  │ EOF / error   │   │  └──────────────────────────────▶ tunnelling ──both EOF──▶ closed
///    │  ▼               │   │ CONNECT                 connected   ▲
///    │ closing ◀────────┘   └──▶ connecting, awaitingClientHello ─┘   (the whole path: `ConnectRequest`)
///    │        close, fault, refusal
///    └──────── (pipelined bytes wait in the decoder until the flow ends)
/// ```
///
/// The state carries what belongs to it: the HTTP/1 side of the request in progress
/// (`exchanging`, `draining`: a `ClientExchange`), the `CONNECT` while it is connected or its
/// ClientHello read (`connecting`, `awaitingClientHello`; the whole path is drawn at
/// `ConnectRequest`), the tunnel's counts (`tunnelling`). The request's flow and upstream are
/// beside the state (`flow`, `upstream`, in a `FlowSlot` that exists only while a request is
/// served): `UpstreamFlowHost`, shared with HTTP/2 streams and duplicates, mutates them in place
/// through `inout` access on every read and write.
///
/// The session turns decoded requests into `FlowRequest`s and each into a `FlowMachine` (the
/// protocol-neutral core: rules, holds, faults, lineages, the flow's trace), hands the machine's
/// upstream actions to an `HTTP1UpstreamCodec`, and encodes its client actions for HTTP/1: the
/// response is re-framed for the client (a close-delimited response becomes chunked for an
/// HTTP/1.1 client). Requests are served one at a time in arrival order; pipelined requests wait
/// in the decoder until the flow before them has ended (RFC 9112 §9.3.2 requires responses in
/// order). `CONNECT` tunnels and ClientHello sniffing are their own small layers
/// (HTTP1ProxySession+Tunnel.swift, +Interception.swift).
public struct HTTP1ProxySession {
    enum State {
        /// Between requests: the next request head is awaited.
        case idle
        /// A request is being served: the HTTP/1 side of it (its flow and upstream are `flow` and
        /// `upstream`, beside the state).
        case exchanging(ClientExchange)
        /// The flow ended before its request body was read (a rule answered it): the rest of the
        /// body is read and dropped, then the connection serves the next request.
        case draining(ClientExchange)
        /// A `CONNECT` whose target is being connected (RFC 9110 §9.3.6): not answered yet, or
        /// answered early and classified as a tunnel. Client bytes wait in the request decoder
        /// until the tunnel opens. Out of line, as the next case: a `ConnectRequest` is twice
        /// the size of any other payload, and the state is inline in every connection's session
        /// (Benchmarks/idle), while a `CONNECT` is rare enough to pay an allocation.
        indirect case connecting(ConnectRequest)
        /// `CONNECT` answered early, nothing connected yet: reading the client's first bytes
        /// (`hello`) to choose between terminating TLS and tunnelling
        /// (HTTP1ProxySession+Interception.swift).
        indirect case awaitingClientHello(ConnectRequest, hello: [UInt8])
        /// The tunnel relays bytes unchanged (HTTP1ProxySession+Tunnel.swift).
        case tunnelling(Tunnel)
        /// A final answer was queued with a close; input is ignored.
        case closing
        case closed
    }

    public let connectionID: ConnectionID
    let configuration: ProxyConfiguration
    let flowIDs: IDGenerator
    let environment: FlowEnvironment
    var state: State = .idle
    var requestDecoder: HTTP1RequestDecoder
    /// The flow core of the request being served and its upstream, while there is one
    /// (`flow` and `upstream`, HTTP1ProxySession+FlowSlot.swift).
    var slot: FlowSlot?
    /// The client sent FIN. A fact about the connection rather than one state: it outlives the
    /// request it arrived during (the response to it closes; a `CONNECT` passes it on when its
    /// tunnel opens).
    var clientReachedEOF = false
    /// The `requestHead` timer runs: a request head has begun and not ended.
    var headTimerArmed = false
    /// The `requestBody` timer runs: a request body is being read and has not ended.
    var bodyTimerArmed = false
    /// The endpoint the previous request was routed to, which the next one to the same origin
    /// reuses (`RequestRoute.decide`).
    var previousEndpoint: UpstreamEndpoint?
    /// Why the session ended, for the trace's `connection.closed` event.
    public internal(set) var closeReason: String?
    var traceConnection: ConnectionID? { connectionID }
    var flowID: FlowID? { slot?.flow.pointee?.id }
    var flowEndpoint: UpstreamEndpoint? { slot?.flow.pointee?.request.endpoint }
    var flowIsUpgrade: Bool { slot?.flow.pointee?.request.kind == .upgrade }
    var hasUpstream: Bool { slot?.hasUpstream ?? false }
    var upstreamStatus: HTTP1UpstreamCodec.Status? { slot?.inspectUpstream { $0.status } }

    /// Creates the session of a newly accepted client connection.
    public init(
        connectionID: ConnectionID, configuration: ProxyConfiguration, tracing: FlowTracing, flowIDs: IDGenerator
    ) {
        self.connectionID = connectionID
        self.configuration = configuration
        self.flowIDs = flowIDs
        self.requestDecoder = HTTP1RequestDecoder(limits: configuration.limits)
        self.environment = FlowEnvironment(
            rules: configuration.rules, responseTimeout: configuration.responseTimeout, tracing: tracing)
    }

    /// Call once after creating the session: arms the idle timer for the first request.
    public mutating func start() -> [ProxyAction] {
        [.setTimer(.clientIdle, configuration.clientIdleTimeout)]
    }

    /// True while the session cannot use more client bytes (pipelined input piling up, request
    /// bytes waiting for their upstream, or closing). The driver stops reading the client meanwhile.
    public var wantsClientReadsPaused: Bool {
        switch state {
        case .idle, .tunnelling, .awaitingClientHello, .draining: return false
        case .closing, .closed: return true
        case .connecting:
            // The tunnel's first bytes wait in the decoder until its target answers.
            return requestDecoder.bufferedByteCount > configuration.maximumPendingUpstreamBytes
        case .exchanging(let exchange):
            if exchange.requestRead {
                return requestDecoder.bufferedByteCount > configuration.maximumPendingUpstreamBytes
            }
            let waiting =
                (slot?.inspectFlow { $0.bufferedRequestBytes } ?? 0)
                + (slot?.inspectUpstream { $0.pendingByteCount } ?? 0)
            return waiting > configuration.maximumPendingUpstreamBytes
        }
    }

    /// True while the session cannot use more upstream bytes (a held or delayed response piling up).
    public var wantsUpstreamReadsPaused: Bool {
        (slot?.inspectFlow { $0.bufferedResponseBytes } ?? 0) > Self.heldResponseLimit
    }

    /// Upstream bytes behind a closed response gate beyond which upstream reads pause: the body
    /// read limit, so a held response keeps what a JSON edit after its release may read.
    static let heldResponseLimit = BodyReadLimit.bytes

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
            relayFromClient(bytes, &output)
        case .awaitingClientHello:
            receiveClientHelloBytes(bytes, &output)
        case .connecting:
            // Tunnel payload, not HTTP (RFC 9110 §9.3.6): it waits undecoded until the tunnel opens.
            requestDecoder.receive(bytes)
        case .idle, .exchanging, .draining:
            requestDecoder.receive(bytes)
            processClientInput(&output)
            restartBodyTimer(&output)
        case .closing, .closed:
            break
        }
        return finish(&output)
    }

    /// The body timeout counts from the client's last bytes: restarted by each read that leaves
    /// a request body unfinished, stopped by one that finishes it (or leaves none being read).
    private mutating func restartBodyTimer(_ output: inout SessionOutput) {
        if isReadingRequestBody {
            bodyTimerArmed = true
            output.append(.setTimer(.requestBody, configuration.bodyTimeout))
        } else if bodyTimerArmed {
            bodyTimerArmed = false
            output.append(.cancelTimer(.requestBody))
        }
    }

    /// A request body is being read (or drained after an early answer) and has not ended.
    private var isReadingRequestBody: Bool {
        guard let exchange else { return false }
        return !exchange.requestRead && exchange.requestFraming.carriesBody
    }

    /// The client shut down its sending side (FIN). It may still read what we send, unless its
    /// flow is held: a client that stops sending while it waits has left (nginx treats it alike).
    public mutating func clientDidReadEOF() -> [ProxyAction] {
        var output = SessionOutput()
        clientReachedEOF = true
        switch state {
        case .tunnelling:
            tunnelClientEOF(&output)
        case .idle, .draining:
            requestDecoder.receiveEOF()
            processClientInput(&output)
            if case .idle = state { close(&output, reason: "client-closed") }
            if case .draining = state { close(&output, reason: "client-closed") }
        case .exchanging:
            requestDecoder.receiveEOF()
            processClientInput(&output)
            if slot?.inspectFlow({ $0.isHeld }) == true {
                flowInput(&output) { $0.clientGone(reason: "client closed the connection while its flow was held") }
            }
        case .awaitingClientHello:
            inspectClientHello(&output)
        case .connecting:
            // Passed on as the tunnel's first shutdown once the target answers (`clientReachedEOF`).
            break
        case .closing, .closed:
            break
        }
        return finish(&output)
    }

    /// The client connection is gone (closed or reset); nothing more can be sent to it.
    public mutating func clientDidClose() -> [ProxyAction] {
        var output = SessionOutput()
        abandon(flowReason: "client closed the connection", closeReason: "client-closed", &output)
        return finish(&output)
    }

    /// The client stopped reading for the send timeout (see `ClientSession.sendTimedOut`): the
    /// flow in flight ends, a tunnel closes; the driver closes the connection.
    public mutating func sendTimedOut() -> [ProxyAction] {
        var output = SessionOutput()
        if case .closed = state { return [] }
        abandon(flowReason: "send-timeout", closeReason: "send-timeout", &output)
        return finish(&output)
    }

    /// The server is stopping. HTTP/1.1 has no graceful ending a server can start: `Connection:
    /// close` rides on a response (RFC 9112 §9.6), and a keep-alive client may send its next
    /// request at any moment. So the connection is closed now, as every connection was before
    /// graceful shutdown existed; a flow in flight ends as if the client had left, a tunnel
    /// closes.
    public mutating func shutDown() -> [ProxyAction] {
        var output = SessionOutput()
        if case .closed = state { return [] }
        abandon(flowReason: "the proxy is shutting down", closeReason: "shutdown", &output)
        output.append(.closeClient(afterFlush: false))
        return finish(&output)
    }

    /// Ends what is in flight on a connection that is going away, and the session.
    private mutating func abandon(flowReason: String, closeReason reason: String, _ output: inout SessionOutput) {
        switch state {
        case .exchanging:
            flowInput(&output) { $0.clientGone(reason: flowReason) }
        case .connecting(let connect), .awaitingClientHello(let connect, _):
            abortConnect(connect, &output, reason: flowReason)
        case .tunnelling:
            finishTunnel(&output, reason: reason)
        case .idle, .draining, .closing, .closed:
            break
        }
        if closeReason == nil { closeReason = reason }
        state = .closed
    }

    // MARK: Timers and holds

    /// A timer armed with `setTimer` expired.
    public mutating func timerFired(_ timer: SessionTimer) -> [ProxyAction] {
        var output = SessionOutput()
        switch (timer, state) {
        case (.clientIdle, .idle):
            close(&output, reason: "idle-timeout")
        case (.clientIdle, .awaitingClientHello):
            clientHelloTimerFired(&output)
        case (.requestHead, .idle) where headTimerArmed:
            headTimerArmed = false
            refuseMalformedRequest(.headerTimeout, &output)
        case (.requestBody, _) where bodyTimerArmed:
            bodyTimerArmed = false
            if isReadingRequestBody { bodyTimerFired(&output) }
        case (.flow(let id, let kind), _) where flowID == id:
            flowInput(&output) { $0.timerFired(kind) }
        default:
            break
        }
        return finish(&output)
    }

    /// A hold registered with `.hold` ended.
    public mutating func holdEnded(flow id: FlowID, _ ending: HoldEnding) -> [ProxyAction] {
        var output = SessionOutput()
        if flowID == id { flowInput(&output) { $0.holdEnded(ending) } }
        return finish(&output)
    }

    // MARK: Shared steps

    /// Ends the session: queued bytes are flushed, then the client connection closes.
    mutating func close(_ output: inout SessionOutput, reason: String) {
        if closeReason == nil { closeReason = reason }
        state = .closing
        output.append(.cancelTimer(.clientIdle))
        cancelHeadTimer(&output)
        output.append(.closeClient(afterFlush: true))
    }
}

extension HTTP1ProxySession {
    /// The HTTP/1 side of the request being served or drained, if there is one.
    var exchange: ClientExchange? {
        switch state {
        case .exchanging(let exchange), .draining(let exchange): return exchange
        default: return nil
        }
    }

    /// Changes the request in progress in place (nothing when there is none).
    mutating func updateExchange(_ change: (inout ClientExchange) -> Void) {
        switch state {
        case .exchanging(var exchange):
            change(&exchange)
            state = .exchanging(exchange)
        case .draining(var exchange):
            change(&exchange)
            state = .draining(exchange)
        default:
            return
        }
    }
}

/// The HTTP/1 side of the request being served: what the client asked for the connection and how
/// its response is framed. Small and without references, so copying it in and out of the state is
/// cheap.
struct ClientExchange {
    let flow: FlowID
    let kind: FlowKind
    let version: HTTPVersion
    /// The request body's framing, as the decoder read it.
    let requestFraming: BodyFraming
    /// The client asked to close after this exchange (HTTP/1.0 without keep-alive,
    /// `Connection: close`), or its connection cannot be trusted any longer.
    var closeAfter: Bool
    /// The decoder reached the end of the request.
    var requestRead = false
    /// The response framing towards the client, once its head went out.
    var responseFraming: BodyFraming?
}
