import FaultlineCore
import FaultlinePosix
import FaultlineProxy
import FaultlineTLS
import FaultlineTrace

/// Drives one client connection's `HTTP1ProxySession` on its event loop: feeds it what the client
/// and upstream sockets report, and carries out the actions it returns.
///
/// Either side may speak TLS (an intercepted or TLS-listener client, an `https` upstream): the
/// `Channel`s encrypt what the session writes and decrypt what the sockets read, so the session
/// only ever sees plaintext (ClientConnectionHandler+TLS.swift). Interception replaces the
/// session: the one that read the `CONNECT` is done, a reverse-mode one serves the requests
/// inside TLS on the same client connection.
///
/// Every method runs on the loop that accepted the client connection; the session, the sockets and
/// the pool are confined to it. Session inputs raised while actions are being carried out (a pooled
/// connection handed over at once, a timer) are queued and fed after the current batch, so the
/// session never sees an input in the middle of its own output.
final class ClientConnectionHandler: StreamConnectionDelegate {
    private enum QueuedInput {
        case upstreamConnected(UpstreamConnectionInfo)
        case upstreamFailed(UpstreamFailure)
        case timer(ProxyTimer)
        case holdEnded(FlowID, HoldOutcome)
        case interception(TLSInterception)
    }

    var client: Channel
    var session: HTTP1ProxySession
    let context: LoopContext
    private(set) var upstream: Channel?
    private var upstreamEndpoint: UpstreamEndpoint?
    /// Bumped whenever a pending connect becomes unwanted, so its late completion is discarded.
    private var connectGeneration = 0
    private var timers: [ProxyTimer: TimerHandle] = [:]
    private var queue: [QueuedInput] = []
    private var draining = false
    private var upstreamReadsPausedForBackpressure = false
    private var clientReadsPausedForBackpressure = false
    /// The registry entry of the flow this connection holds, if any.
    private var heldID: UInt64?
    private var clientPacer: Pacer?
    private var upstreamPacer: Pacer?
    /// What to offer an `https` upstream in ALPN (RFC 7301): for an intercepted client, what it
    /// offered that we speak; otherwise HTTP/1.1.
    var upstreamALPN = ServerTLSConfiguration.applicationProtocols
    /// Armed while the client's TLS handshake runs.
    var clientHandshakeTimer: TimerHandle?
    /// The session was told the client's input ended (`close_notify` or EOF, told once).
    var clientInputEnded = false
    /// The session was told the upstream's input ended (`close_notify` or EOF, told once).
    var upstreamInputEnded = false
    /// The `CONNECT` flow whose TLS this connection terminates, for the `tls.*` events.
    var interceptedFlow: FlowID?
    /// Why the connection closed when the session cannot know (a TLS failure).
    var closeReason: String?

    init(client: StreamConnection, session: HTTP1ProxySession, context: LoopContext) {
        self.client = Channel(socket: client)
        self.session = session
        self.context = context
    }

    /// Starts reading the client. With `tlsFallbackHost` the client speaks TLS from its first byte
    /// (a TLS listener): the certificate names its SNI host, else `tlsFallbackHost`.
    func start(tlsFallbackHost: String? = nil) {
        client.socket.delegate = self
        perform(session.start())
        if let tlsFallbackHost { startClientTLS(certificateHost: tlsFallbackHost) }
        client.socket.start()
    }

    // MARK: Carrying out actions

    func perform(_ actions: [ProxyAction]) {
        for action in actions { perform(action) }
        updateClientReading()
        drainQueue()
    }

    private func drainQueue() {
        guard !draining else { return }
        draining = true
        defer { draining = false }
        while !queue.isEmpty {
            let input = queue.removeFirst()
            let actions: [ProxyAction]
            switch input {
            case .upstreamConnected(let info): actions = session.upstreamDidConnect(info)
            case .upstreamFailed(let failure): actions = session.upstreamDidFailToConnect(failure)
            case .timer(let timer): actions = session.timerFired(timer)
            case .holdEnded(let flow, let outcome):
                heldID = nil
                actions = session.holdEnded(flow: flow, outcome: outcome)
            case .interception(let interception):
                intercept(interception)
                actions = []
            }
            for action in actions { perform(action) }
            updateClientReading()
        }
    }

    private func perform(_ action: ProxyAction) {
        switch action {
        case .writeToClient(let bytes):
            if let clientPacer { clientPacer.enqueue(bytes) } else { client.write(bytes) }
            let queued = client.socket.outboundBufferedBytes + (clientPacer?.queuedBytes ?? 0)
            if let upstream, queued > context.configuration.backpressureHighWatermark {
                upstreamReadsPausedForBackpressure = true
                upstream.socket.setReadingPaused(true)
            }
        case .writeToUpstream(let bytes):
            guard let upstream else { preconditionFailure("session wrote upstream without a connection") }
            if let upstreamPacer { upstreamPacer.enqueue(bytes) } else { upstream.write(bytes) }
            let queued = upstream.socket.outboundBufferedBytes + (upstreamPacer?.queuedBytes ?? 0)
            if queued > context.configuration.backpressureHighWatermark {
                clientReadsPausedForBackpressure = true
            }
        case .connectUpstream(let endpoint, let fresh):
            connect(to: endpoint, fresh: fresh)
        case .releaseUpstream:
            if let upstream, let upstreamEndpoint {
                // Paced request bytes still queued mean the connection is mid-message.
                let midMessage = (upstreamPacer?.queuedBytes ?? 0) > 0
                detachUpstream()
                if midMessage { upstream.socket.close() } else { context.pool.put(upstream, for: upstreamEndpoint) }
            }
        case .closeUpstream:
            connectGeneration += 1
            if let upstream {
                detachUpstream()
                upstream.socket.close()
            }
        case .shutdownUpstreamWrite:
            upstream?.shutdownWrite()
        case .shutdownClientWrite:
            client.shutdownWrite()
        case .closeClient(let afterFlush):
            if afterFlush { client.closeAfterFlush() } else { client.socket.close() }
        case .setTimer(let timer, let delay):
            if let handle = timers.removeValue(forKey: timer) { context.loop.cancelTimer(handle) }
            timers[timer] = context.loop.scheduleTimer(after: delay) { [weak self] in
                guard let self else { return }
                self.timers[timer] = nil
                self.queue.append(.timer(timer))
                self.drainQueue()
            }
        case .cancelTimer(let timer):
            if let handle = timers.removeValue(forKey: timer) { context.loop.cancelTimer(handle) }
        case .resetClient:
            client.socket.resetAndClose()
        case .hold(let request):
            hold(request)
        case .unregisterHold:
            if let heldID { context.rules.holds.remove(id: heldID) }
            heldID = nil
        case .observed(let event):
            context.rules.publish(event)
        case .ruleFired(let id):
            context.rules.ruleFired(id)
        case .duplicate(let request):
            context.sendDuplicates(request)
        case .throttle(let side, let rate):
            throttle(side, rate)
        case .interceptTLS(let interception):
            queue.append(.interception(interception))
        }
    }

    private func hold(_ request: HoldRequest) {
        // The outcome may come from any thread; it is handed back to this loop.
        let handler = LoopBound(WeakHandler(self), on: context.loop)
        let info = context.rules.holds.add(
            name: request.name, flow: request.flow, connection: client.id, phase: request.phase,
            summary: request.summary, releaseOn: request.releaseOn
        ) { outcome in
            handler.loop.execute {
                guard let self = handler.value.handler else { return }
                self.queue.append(.holdEnded(request.flow, outcome))
                self.drainQueue()
            }
        }
        heldID = info.id
    }

    /// Starts, changes or ends pacing on one side. Ending waits until the paced bytes are out.
    private func throttle(_ side: ThrottleSide, _ rate: Int?) {
        let current = side == .client ? clientPacer : upstreamPacer
        if let current {
            if let rate {
                current.setRate(rate)
            } else {
                current.finishWhenDrained { [weak self, weak current] in
                    guard let self, let current else { return }
                    if self.clientPacer === current { self.clientPacer = nil }
                    if self.upstreamPacer === current { self.upstreamPacer = nil }
                }
            }
            return
        }
        guard let rate else { return }
        switch side {
        case .client:
            clientPacer = Pacer(loop: context.loop, bytesPerSecond: rate) { [weak self] bytes in self?.client.write(bytes) }
        case .upstream:
            upstreamPacer = Pacer(loop: context.loop, bytesPerSecond: rate) { [weak self] bytes in
                self?.upstream?.write(bytes)
            }
        }
    }

    func detachUpstream() {
        upstreamPacer?.cancel()
        upstreamPacer = nil
        upstream?.socket.delegate = nil
        if upstreamReadsPausedForBackpressure { upstream?.socket.setReadingPaused(false) }
        upstreamReadsPausedForBackpressure = false
        clientReadsPausedForBackpressure = false
        upstream = nil
        upstreamEndpoint = nil
    }

    private func updateClientReading() {
        guard client.socket.isOpen else { return }
        let paused = session.wantsClientReadsPaused || clientReadsPausedForBackpressure
        if paused != client.socket.isReadingPaused { client.socket.setReadingPaused(paused) }
        if let upstream, upstream.socket.isOpen {
            let upstreamPaused = session.wantsUpstreamReadsPaused || upstreamReadsPausedForBackpressure
            if upstreamPaused != upstream.socket.isReadingPaused { upstream.socket.setReadingPaused(upstreamPaused) }
        }
    }

    // MARK: Upstream connections

    private func connect(to endpoint: UpstreamEndpoint, fresh: Bool) {
        connectGeneration += 1
        let generation = connectGeneration
        if !fresh, let pooled = context.pool.take(endpoint) {
            attach(pooled, endpoint: endpoint, reused: true)
            return
        }
        context.openConnection(to: endpoint, alpn: upstreamALPN) { [weak self] result in
            guard let self, generation == self.connectGeneration, self.client.socket.isOpen else {
                if case .success(let channel) = result { channel.socket.close() }
                return
            }
            switch result {
            case .success(let connection): self.attach(connection, endpoint: endpoint, reused: false)
            case .failure(let failure): self.queue.append(.upstreamFailed(failure))
            }
            self.drainQueue()
        }
    }

    /// Takes over a connection from the pool or from `openConnection` (which comes started).
    private func attach(_ channel: Channel, endpoint: UpstreamEndpoint, reused: Bool) {
        upstream = channel
        upstreamEndpoint = endpoint
        upstreamInputEnded = false
        channel.socket.delegate = self
        let address = channel.socket.remoteAddress?.description ?? endpoint.hostHeaderValue
        queue.append(.upstreamConnected(UpstreamConnectionInfo(id: channel.id, remoteAddress: address, reused: reused)))
    }

    // MARK: StreamConnectionDelegate

    func streamConnection(_ connection: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        if connection === client.socket {
            if client.tls != nil {
                clientTLSEvents(client.receive(bytes))
            } else {
                perform(session.clientDidRead(bytes))
            }
        } else if let upstream, connection === upstream.socket {
            if upstream.tls != nil {
                upstreamTLSEvents(upstream.receive(bytes))
            } else {
                perform(session.upstreamDidRead(bytes))
            }
        }
    }

    func streamConnectionDidReadEOF(_ connection: StreamConnection) {
        if connection === client.socket {
            if client.tls != nil {
                clientTLSEvents(client.receiveEOF())
                clientInputDidEnd()
            } else {
                perform(session.clientDidReadEOF())
            }
        } else if let upstream, connection === upstream.socket {
            if upstream.tls != nil {
                upstreamTLSEvents(upstream.receiveEOF())
                // Without close_notify the codec's framing still tells a complete response from a
                // cut one, so a plain EOF is passed on like one on TCP.
                if let current = self.upstream, current.socket === connection { upstreamInputDidEnd() }
            } else {
                perform(session.upstreamDidReadEOF())
            }
        }
    }

    func streamConnectionDidDrainOutbound(_ connection: StreamConnection) {
        if connection === client.socket, upstreamReadsPausedForBackpressure {
            upstreamReadsPausedForBackpressure = false
            upstream?.socket.setReadingPaused(false)
        } else if let upstream, connection === upstream.socket, clientReadsPausedForBackpressure {
            clientReadsPausedForBackpressure = false
            updateClientReading()
        }
    }

    func streamConnection(_ connection: StreamConnection, didCloseWith error: SystemError?) {
        if connection === client.socket {
            clientClosed(error)
        } else if let upstream, connection === upstream.socket {
            detachUpstream()
            perform(session.upstreamDidClose())
        }
    }

    private func clientClosed(_ error: SystemError?) {
        connectGeneration += 1
        perform(session.clientDidClose())
        for handle in timers.values { context.loop.cancelTimer(handle) }
        timers = [:]
        queue = []
        if let heldID { context.rules.holds.remove(id: heldID) }
        heldID = nil
        clientPacer?.cancel()
        clientPacer = nil
        if let clientHandshakeTimer { context.loop.cancelTimer(clientHandshakeTimer) }
        clientHandshakeTimer = nil
        if let upstream {
            detachUpstream()
            upstream.socket.close()
        }
        var fields: [TraceField] = [.string("reason", closeReason ?? session.closeReason ?? "closed")]
        if let error { fields.append(.string("error", error.description)) }
        context.trace.record(.connectionClosed, connection: client.id, fields)
        context.remove(self, id: client.id)
    }
}

/// A weak reference, so a hold outlived by its connection does not keep the handler alive.
private struct WeakHandler {
    weak var handler: ClientConnectionHandler?
    init(_ handler: ClientConnectionHandler) { self.handler = handler }
}
