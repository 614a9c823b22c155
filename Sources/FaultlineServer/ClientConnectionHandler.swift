import FaultlineCore
import FaultlinePosix
import FaultlineProxy
import FaultlineTrace

/// Drives one client connection's `HTTP1ProxySession` on its event loop: feeds it what the client
/// and upstream sockets report, and carries out the actions it returns.
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
    }

    private let client: StreamConnection
    private var session: HTTP1ProxySession
    private let context: LoopContext
    private var upstream: StreamConnection?
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

    init(client: StreamConnection, session: HTTP1ProxySession, context: LoopContext) {
        self.client = client
        self.session = session
        self.context = context
    }

    func start() {
        client.delegate = self
        perform(session.start())
        client.start()
    }

    // MARK: Carrying out actions

    private func perform(_ actions: [ProxyAction]) {
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
            }
            for action in actions { perform(action) }
            updateClientReading()
        }
    }

    private func perform(_ action: ProxyAction) {
        switch action {
        case .writeToClient(let bytes):
            if let clientPacer { clientPacer.enqueue(bytes) } else { client.write(bytes) }
            let queued = client.outboundBufferedBytes + (clientPacer?.queuedBytes ?? 0)
            if let upstream, queued > context.configuration.backpressureHighWatermark {
                upstreamReadsPausedForBackpressure = true
                upstream.setReadingPaused(true)
            }
        case .writeToUpstream(let bytes):
            guard let upstream else { preconditionFailure("session wrote upstream without a connection") }
            if let upstreamPacer { upstreamPacer.enqueue(bytes) } else { upstream.write(bytes) }
            let queued = upstream.outboundBufferedBytes + (upstreamPacer?.queuedBytes ?? 0)
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
                if midMessage { upstream.close() } else { context.pool.put(upstream, for: upstreamEndpoint) }
            }
        case .closeUpstream:
            connectGeneration += 1
            if let upstream {
                detachUpstream()
                upstream.close()
            }
        case .shutdownUpstreamWrite:
            upstream?.shutdownWrite()
        case .shutdownClientWrite:
            client.shutdownWrite()
        case .closeClient(let afterFlush):
            if afterFlush { client.closeAfterFlush() } else { client.close() }
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
            client.resetAndClose()
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

    private func detachUpstream() {
        upstreamPacer?.cancel()
        upstreamPacer = nil
        upstream?.delegate = nil
        if upstreamReadsPausedForBackpressure { upstream?.setReadingPaused(false) }
        upstreamReadsPausedForBackpressure = false
        clientReadsPausedForBackpressure = false
        upstream = nil
        upstreamEndpoint = nil
    }

    private func updateClientReading() {
        guard client.isOpen else { return }
        let paused = session.wantsClientReadsPaused || clientReadsPausedForBackpressure
        if paused != client.isReadingPaused { client.setReadingPaused(paused) }
        if let upstream, upstream.isOpen {
            let upstreamPaused = session.wantsUpstreamReadsPaused || upstreamReadsPausedForBackpressure
            if upstreamPaused != upstream.isReadingPaused { upstream.setReadingPaused(upstreamPaused) }
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
        context.openConnection(to: endpoint) { [weak self] result in
            guard let self, generation == self.connectGeneration, self.client.isOpen else {
                if case .success(let connection) = result { connection.close() }
                return
            }
            switch result {
            case .success(let connection): self.attach(connection, endpoint: endpoint, reused: false)
            case .failure(let failure): self.queue.append(.upstreamFailed(failure))
            }
            self.drainQueue()
        }
    }

    private func attach(_ connection: StreamConnection, endpoint: UpstreamEndpoint, reused: Bool) {
        upstream = connection
        upstreamEndpoint = endpoint
        connection.delegate = self
        if !reused { connection.start() }
        let address = connection.remoteAddress?.description ?? endpoint.hostHeaderValue
        queue.append(.upstreamConnected(UpstreamConnectionInfo(id: connection.id, remoteAddress: address, reused: reused)))
    }

    // MARK: StreamConnectionDelegate

    func streamConnection(_ connection: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        if connection === client {
            perform(session.clientDidRead(bytes))
        } else if connection === upstream {
            perform(session.upstreamDidRead(bytes))
        }
    }

    func streamConnectionDidReadEOF(_ connection: StreamConnection) {
        if connection === client {
            perform(session.clientDidReadEOF())
        } else if connection === upstream {
            perform(session.upstreamDidReadEOF())
        }
    }

    func streamConnectionDidDrainOutbound(_ connection: StreamConnection) {
        if connection === client, upstreamReadsPausedForBackpressure {
            upstreamReadsPausedForBackpressure = false
            upstream?.setReadingPaused(false)
        } else if connection === upstream, clientReadsPausedForBackpressure {
            clientReadsPausedForBackpressure = false
            updateClientReading()
        }
    }

    func streamConnection(_ connection: StreamConnection, didCloseWith error: SystemError?) {
        if connection === client {
            clientClosed(error)
        } else if connection === upstream {
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
        if let upstream {
            detachUpstream()
            upstream.close()
        }
        var fields: [TraceField] = [.string("reason", session.closeReason ?? "closed")]
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
