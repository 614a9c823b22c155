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
            }
            for action in actions { perform(action) }
            updateClientReading()
        }
    }

    private func perform(_ action: ProxyAction) {
        switch action {
        case .writeToClient(let bytes):
            client.write(bytes)
            if let upstream, client.outboundBufferedBytes > context.configuration.backpressureHighWatermark {
                upstreamReadsPausedForBackpressure = true
                upstream.setReadingPaused(true)
            }
        case .writeToUpstream(let bytes):
            guard let upstream else { preconditionFailure("session wrote upstream without a connection") }
            upstream.write(bytes)
            if upstream.outboundBufferedBytes > context.configuration.backpressureHighWatermark {
                clientReadsPausedForBackpressure = true
            }
        case .connectUpstream(let endpoint, let fresh):
            connect(to: endpoint, fresh: fresh)
        case .releaseUpstream:
            if let upstream, let upstreamEndpoint {
                detachUpstream()
                context.pool.put(upstream, for: upstreamEndpoint)
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
        }
    }

    private func detachUpstream() {
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
    }

    // MARK: Upstream connections

    private func connect(to endpoint: UpstreamEndpoint, fresh: Bool) {
        connectGeneration += 1
        let generation = connectGeneration
        if !fresh, let pooled = context.pool.take(endpoint) {
            attach(pooled, endpoint: endpoint, reused: true)
            return
        }
        if let addresses = context.resolver.cachedAddresses(host: endpoint.host, port: endpoint.port) {
            open(endpoint, addresses: addresses, generation: generation)
            return
        }
        context.resolver.resolve(
            host: endpoint.host, port: endpoint.port, on: context.loop,
            completion: { [weak self] addresses in
                guard let self, generation == self.connectGeneration else { return }
                self.open(endpoint, addresses: addresses, generation: generation)
            },
            failure: { [weak self] error in
                guard let self, generation == self.connectGeneration else { return }
                self.queue.append(.upstreamFailed(.dnsFailure(endpoint.host, error.description)))
                self.drainQueue()
            })
    }

    private func open(_ endpoint: UpstreamEndpoint, addresses: [SocketAddress], generation: Int) {
        let id = ConnectionID(context.ids.next())
        StreamConnection.connect(
            to: addresses, id: id, on: context.loop, timeout: context.configuration.connectTimeout
        ) { [weak self] result in
            guard let self, generation == self.connectGeneration, self.client.isOpen else {
                if case .success(let connection) = result { connection.close() }
                return
            }
            switch result {
            case .success(let connection):
                self.attach(connection, endpoint: endpoint, reused: false)
            case .failure(let error):
                let target = endpoint.hostHeaderValue
                self.queue.append(
                    .upstreamFailed(
                        error.isTimeout ? .connectTimeout(target) : .connectRefused(target, error.description)))
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
