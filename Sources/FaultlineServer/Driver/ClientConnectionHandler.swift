import FaultlineCore
import FaultlineFlow
import FaultlineHTTP2
import FaultlinePosix
import FaultlineProxy
import FaultlineRules
import FaultlineTLS
import FaultlineTrace

/// Drives one client connection's session (`ClientSession`: HTTP/1.1, or HTTP/2 once ALPN or the
/// h2c preface says so) on its event loop: feeds it what the client and upstream sockets report,
/// and carries out the actions it returns.
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
final class ClientConnectionHandler: StreamConnectionDelegate, UpstreamLinksOwner {
    private enum QueuedInput {
        case upstreamConnected(FlowID, UpstreamConnectionInfo)
        case upstreamFailed(FlowID, UpstreamFailure)
        case timer(SessionTimer)
        case holdEnded(FlowID, HoldEnding)
        case interception(TLSInterception)
        case upstreamBacklog(FlowID, Int)
    }

    var client: Channel
    // Loop-confined state the request path changes in place: release builds skip Swift's dynamic
    // exclusivity check on it, debug builds (every test) keep it (ARCHITECTURE.md, "Exclusivity").
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var session: any ClientSession
    /// The settings `session` was made with, for an HTTP/2 session that replaces it.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var sessionConfiguration: ProxyConfiguration
    /// Set while a plain connection's first bytes may still be the h2c preface.
    private var prefaceSniffer: HTTP2PrefaceSniffer?
    let context: LoopContext
    /// The upstream connections of this connection's flows.
    let upstreams: UpstreamLinks
    private let timers: TimerSet<SessionTimer>
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var queue: [QueuedInput] = []
    private var draining = false
    /// A batch of actions is being carried out: inputs it raises wait for its end.
    private var performing = false
    private var clientReadsPausedForBackpressure = false
    /// An upstream link may have its reads paused: set whenever this handler pauses one (nothing
    /// else does), cleared when `updateReading` finds none paused. While it is false an input
    /// about one flow looks at that flow's link alone (see `updateReading`).
    private var someLinkMayBePaused = false
    /// Flows whose upstream backlog the session was told is over the high watermark (sessions
    /// that do not pause the client for it: HTTP/2).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var backloggedFlows: Set<FlowID> = []
    /// The registry entries of the flows this connection holds.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var heldIDs: [FlowID: UInt64] = [:]
    private var clientPacer: Pacer?
    /// Armed while the client's TLS handshake runs.
    var clientHandshakeTimer: TimerHandle?
    /// Runs while output waits for the client to read it (ClientConnectionHandler+SendTimeout.swift).
    var sendClock: SendClock?
    /// The session was told the client's input ended (`close_notify` or EOF, told once).
    var clientInputEnded = false
    /// The `CONNECT` flow whose TLS this connection terminates, for the `tls.*` events.
    var interceptedFlow: FlowID?
    /// Why the connection closed when the session cannot know (a TLS failure).
    var closeReason: String?

    /// A handler whose client speaks HTTP/1.1 until ALPN or its first bytes say otherwise.
    init(client: StreamConnection, configuration: ProxyConfiguration, context: LoopContext) {
        self.client = Channel(socket: client)
        self.session = HTTP1ProxySession(
            connectionID: client.id, configuration: configuration, tracing: context.tracing, flowIDs: context.flowIDs)
        self.sessionConfiguration = configuration
        self.context = context
        self.upstreams = UpstreamLinks(context: context)
        self.timers = TimerSet(loop: context.loop)
        upstreams.owner = self
        timers.onFire = { [weak self] timer in
            guard let self else { return }
            self.queue.append(.timer(timer))
            self.drainQueue()
        }
    }

    /// Starts reading the client. With `tlsFallbackHost` the client speaks TLS from its first byte
    /// (a TLS listener): the certificate names its SNI host, else `tlsFallbackHost`. With
    /// `sniffsHTTP2`, a client that opens with the HTTP/2 preface gets an HTTP/2 session.
    func start(tlsFallbackHost: String? = nil, sniffsHTTP2: Bool = false) {
        client.socket.delegate = self
        perform(session.start())
        if let tlsFallbackHost { startClientTLS(certificateHost: tlsFallbackHost) }
        if sniffsHTTP2 { prefaceSniffer = HTTP2PrefaceSniffer() }
        client.socket.start()
    }

    /// Serves the client with a new session from now on (the old one has read nothing that
    /// matters: a `CONNECT` that is done, or nothing at all). False, and the connection closing,
    /// when an HTTP/2 session cannot be made.
    @discardableResult
    func replaceSession(configuration: ProxyConfiguration, http2: Bool) -> Bool {
        do {
            session = try context.makeSession(connectionID: client.id, configuration: configuration, http2: http2)
        } catch {
            context.trace.record(
                .protocolError, connection: client.id,
                [.string("side", "proxy"), .string("code", "http2-\(error.code)"), .string("message", error.message)])
            closeReason = "http2-setup-failed"
            client.socket.close()
            return false
        }
        sessionConfiguration = configuration
        perform(session.start())
        return true
    }

    /// The server is stopping: the session ends the connection its own way (HTTP/2: GOAWAY and
    /// the open streams finish; HTTP/1.1, a tunnel, a handshake or a connection still being
    /// sniffed: closed now). A connection whose first bytes are still being sniffed has an
    /// HTTP/1.1 session, so it is closed.
    func shutDown() {
        guard client.socket.isOpen else { return }
        perform(session.shutDown())
    }

    // MARK: Carrying out actions

    /// Carries out `actions`; `scope` says which upstream links the input that produced them may
    /// have to pause (see `updateReading`).
    func perform(_ actions: [ProxyAction], scope: ReadScope = .all) {
        performing = true
        for action in actions { perform(action) }
        performing = false
        updateReading(scope)
        drainQueue()
    }

    private func drainQueue() {
        guard !draining else { return }
        draining = true
        defer { draining = false }
        while !queue.isEmpty {
            let input = queue.removeFirst()
            let actions: [ProxyAction]
            var scope = ReadScope.all
            switch input {
            case .upstreamConnected(let flow, let info):
                actions = session.upstreamDidConnect(flow: flow, info)
                scope = .flow(flow)
            case .upstreamFailed(let flow, let failure):
                actions = session.upstreamDidFailToConnect(flow: flow, failure)
                scope = .flow(flow)
            case .timer(let timer) where timer.timesRequestBody && client.socket.isReadingPaused:
                // The proxy stopped reading the client (backpressure): its silence is ours, so
                // the body timeout starts again rather than firing.
                timers.arm(timer, after: sessionConfiguration.bodyTimeout)
                actions = []
            case .timer(let timer):
                actions = session.timerFired(timer)
                if case .flow(let flow, _) = timer { scope = .flow(flow) }
            case .holdEnded(let flow, let ending):
                heldIDs[flow] = nil
                actions = session.holdEnded(flow: flow, ending)
                scope = .flow(flow)
            case .interception(let interception):
                intercept(interception)
                actions = []
            case .upstreamBacklog(let flow, let bytes):
                actions = session.upstreamBacklogChanged(flow: flow, bytes: bytes)
                scope = .flow(flow)
            }
            for action in actions { perform(action) }
            updateReading(scope)
        }
    }

    private func perform(_ action: ProxyAction) {
        switch action {
        case .writeToClient(let bytes):
            if let clientPacer { clientPacer.enqueue(bytes) } else { client.write(bytes) }
            let queued = client.socket.outboundBufferedBytes + (clientPacer?.queuedBytes ?? 0)
            if queued > context.configuration.backpressureHighWatermark {
                for link in upstreams.all where !link.pausedForBackpressure {
                    link.pausedForBackpressure = true
                    link.channel.socket.setReadingPaused(true)
                    someLinkMayBePaused = true
                }
            }
        case .writeToUpstream(let flow, let bytes):
            let queued = upstreams.write(flow, bytes)
            if queued > context.configuration.backpressureHighWatermark {
                // HTTP/1: the client connection is this flow's. HTTP/2: only its stream waits.
                if inspectSession({ $0.pausesClientForUpstreamBacklog }) {
                    clientReadsPausedForBackpressure = true
                } else if backloggedFlows.insert(flow).inserted {
                    queue.append(.upstreamBacklog(flow, queued))
                }
            }
        case .connectUpstream(let flow, let endpoint, let fresh, let http1Only):
            upstreams.connect(flow, to: endpoint, fresh: fresh, http1Only: http1Only)
        case .releaseUpstream(let flow):
            upstreams.release(flow)
            backloggedFlows.remove(flow)
            clientReadsPausedForBackpressure = false
        case .closeUpstream(let flow):
            upstreams.close(flow)
            backloggedFlows.remove(flow)
            clientReadsPausedForBackpressure = false
        case .shutdownUpstreamWrite(let flow):
            upstreams.shutdownWrite(flow)
        case .shutdownClientWrite:
            afterPacedBytes { $0.client.shutdownWrite() }
        case .closeClient(let afterFlush):
            if afterFlush { afterPacedBytes { $0.client.closeAfterFlush() } } else { client.socket.close() }
        case .setTimer(let timer, let delay):
            timers.arm(timer, after: delay)
        case .cancelTimer(let timer):
            timers.cancel(timer)
        case .resetClient:
            client.socket.resetAndClose()
        case .hold(let request):
            hold(request)
        case .unregisterHold(let flow):
            if let id = heldIDs.removeValue(forKey: flow) { context.rules.holds.remove(id: id) }
        case .observed(let event):
            context.rules.publish(event)
        case .ruleFired(let id):
            context.rules.ruleFired(id)
        case .duplicate(let request):
            context.startDuplicates(request)
        case .duplicateBody(let flow, let bytes):
            context.streamToDuplicates(of: flow, bytes)
        case .duplicateEnd(let flow, let complete):
            context.endDuplicates(of: flow, complete: complete)
        case .throttle(let flow, let side, let rate):
            if side == .upstream { upstreams.throttle(flow, rate) } else { throttleClient(rate) }
        case .decide(let flow, let question):
            // Answered on the loop, before the session sees anything else: a `times: 1` rule
            // fires for one flow only, and the flow never waits on another thread.
            guard let policy = context.rules.policy else {
                preconditionFailure("a flow asked rules that are not loaded")
            }
            for next in session.ruleDecided(flow: flow, policy.answer(question)) { perform(next) }
        case .trace(let entry):
            context.record(entry)
        case .stepLineage(let flow, let connection, let step):
            context.rules.perform(step, flow: flow, connection: connection, trace: context.trace)
        case .interceptTLS(let interception):
            queue.append(.interception(interception))
        }
    }

    /// Gives back the storage of containers past requests left empty (Swift keeps a container's
    /// storage when it is emptied): the session's input buffer, the upstream tables' spill-over
    /// and the input queue, so an idle keep-alive connection carries none of them (Benchmarks/idle). `LoopContext` calls it
    /// every few seconds rather than at every request's end, where making them again would cost
    /// each request a few allocations.
    func releaseIdleStorage() {
        session.releaseIdleStorage()
        upstreams.releaseUnusedStorage()
        timers.releaseUnusedStorage()
        if queue.isEmpty { queue = [] }
    }

    private func hold(_ request: HoldRequest) {
        // The outcome may come from any thread; it is handed back to this loop.
        let handler = LoopBound(WeakHandler(self), on: context.loop)
        let info = context.rules.holds.add(
            name: request.name, flow: request.flow, connection: client.id, phase: request.phase,
            summary: request.summary, releaseOn: request.releaseOn
        ) { ending in
            handler.loop.execute {
                guard let self = handler.value.handler else { return }
                self.queue.append(.holdEnded(request.flow, ending))
                self.drainQueue()
            }
        }
        heldIDs[request.flow] = info.id
    }

    /// Runs `step` once a throttle's paced bytes have all reached the socket, at once without a
    /// throttle: a close after a response (`Connection: close`, HTTP/1.0) must not cut the
    /// response the pacer is still letting out.
    private func afterPacedBytes(_ step: @escaping (ClientConnectionHandler) -> Void) {
        guard let clientPacer else { return step(self) }
        clientPacer.whenDrained { [weak self] in
            guard let self else { return }
            step(self)
        }
    }

    /// Starts, changes or ends pacing of the client's writes. Ending waits until the paced bytes are out.
    private func throttleClient(_ rate: Int?) {
        if let clientPacer {
            if let rate {
                clientPacer.setRate(rate)
            } else {
                clientPacer.finishWhenDrained { [weak self, weak clientPacer] in
                    guard let self, let clientPacer, self.clientPacer === clientPacer else { return }
                    self.clientPacer = nil
                }
            }
            return
        }
        guard let rate else { return }
        clientPacer = Pacer(loop: context.loop, bytesPerSecond: rate) { [weak self] bytes in self?.client.write(bytes) }
    }

    /// Which upstream links an input may have changed the read pause of. A link can come to need
    /// a pause only through its own flow (its upstream's bytes, its hold, its timer); a client
    /// read (more window, new streams, resets) can only let paused ones go. Asking the session
    /// about every link after every input cost O(streams) per input on a busy HTTP/2 connection.
    enum ReadScope: Equatable {
        case all
        case flow(FlowID)
        case pausedOnly
    }

    /// Reads the session where it lies. A query read straight off the `any ClientSession`
    /// property copies the whole session first (the class property's read access ends before the
    /// call, so the value is copied out): several KiB per input, seen in the benchmark profile as
    /// `initializeWithCopy for HTTP1ProxySession`. An `inout` access opens it in place.
    private func inspectSession<Result>(_ query: (inout any ClientSession) -> Result) -> Result {
        query(&session)
    }

    private func updateReading(_ scope: ReadScope = .all) {
        guard client.socket.isOpen else { return }
        let paused = inspectSession { $0.wantsClientReadsPaused } || clientReadsPausedForBackpressure
        if paused != client.socket.isReadingPaused { client.socket.setReadingPaused(paused) }
        if scope != .all, !someLinkMayBePaused {
            // No link is paused, so none is to be let go: only the input's own flow may need a
            // pause. Going through every link retained each (a weak reference's target: the slow
            // path), about 170 instructions a link, after every input of a busy HTTP/2 connection.
            if case .flow(let flow) = scope, let link = upstreams.link(flow) { updateReading(of: link) }
            return
        }
        // A handful of links (HTTP/1.1 has one) costs nothing to ask about all; the scope pays
        // off on an HTTP/2 connection with many streams in flight.
        let everyLink = scope == .all || upstreams.all.count <= 4
        var anyPaused = false
        for link in upstreams.all where link.channel.socket.isOpen {
            if !everyLink, !link.channel.socket.isReadingPaused, scope != .flow(link.flow) { continue }
            updateReading(of: link)
            anyPaused = anyPaused || link.channel.socket.isReadingPaused
        }
        someLinkMayBePaused = anyPaused
    }

    /// Pauses or resumes reading `link` as its flow and the backpressure say.
    private func updateReading(of link: UpstreamLinks.Link) {
        guard link.channel.socket.isOpen else { return }
        let upstreamPaused =
            inspectSession { $0.wantsUpstreamReadsPaused(flow: link.flow) } || link.pausedForBackpressure
        if upstreamPaused != link.channel.socket.isReadingPaused {
            link.channel.socket.setReadingPaused(upstreamPaused)
            if upstreamPaused { someLinkMayBePaused = true }
        }
    }

    // MARK: UpstreamLinksOwner

    func upstreamConnected(_ flow: FlowID, _ info: UpstreamConnectionInfo) {
        queue.append(.upstreamConnected(flow, info))
        if !performing { drainQueue() }
    }

    func upstreamFailed(_ flow: FlowID, _ failure: UpstreamFailure) {
        queue.append(.upstreamFailed(flow, failure))
        if !performing { drainQueue() }
    }

    func upstreamRead(_ flow: FlowID, _ bytes: UnsafeRawBufferPointer) {
        perform(session.upstreamDidRead(flow: flow, bytes), scope: .flow(flow))
    }

    func upstreamInputEnded(_ flow: FlowID) {
        perform(session.upstreamDidReadEOF(flow: flow), scope: .flow(flow))
    }

    func upstreamClosed(_ flow: FlowID) {
        backloggedFlows.remove(flow)
        clientReadsPausedForBackpressure = false
        perform(session.upstreamDidClose(flow: flow))
    }

    func upstreamDrained(_ flow: FlowID) {
        if backloggedFlows.contains(flow) {
            // A throttle's pacer may still hold more than the watermark: then wait for its next drain.
            let queued = upstreams.link(flow)?.queuedBytes ?? 0
            if queued <= context.configuration.backpressureHighWatermark {
                backloggedFlows.remove(flow)
                queue.append(.upstreamBacklog(flow, queued))
                if !performing { drainQueue() }
            }
        }
        guard clientReadsPausedForBackpressure else { return }
        clientReadsPausedForBackpressure = false
        updateReading()
    }

    // MARK: StreamConnectionDelegate (the client socket)

    func streamConnection(_ connection: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        if client.tls != nil {
            clientTLSEvents(client.receive(bytes))
        } else if prefaceSniffer != nil {
            sniff(bytes)
        } else {
            perform(session.clientDidRead(bytes), scope: .pausedOnly)
        }
    }

    /// The first reads of a plain connection: HTTP/1.1 unless they are the h2c preface.
    private func sniff(_ bytes: UnsafeRawBufferPointer) {
        let held: [UInt8]
        switch prefaceSniffer!.receive(bytes) {
        case .undecided:
            return
        case .http1(let bytes):
            held = bytes
        case .http2(let bytes):
            held = bytes
            guard replaceSession(configuration: sessionConfiguration, http2: true) else { return }
        }
        prefaceSniffer = nil
        if !held.isEmpty { held.withUnsafeBytes { perform(session.clientDidRead($0)) } }
        if client.socket.isOpen { perform(session.clientDidRead(bytes), scope: .pausedOnly) }
    }

    func streamConnectionDidReadEOF(_ connection: StreamConnection) {
        if client.tls != nil {
            clientTLSEvents(client.receiveEOF())
            clientInputDidEnd()
            return
        }
        if let held = prefaceSniffer?.receiveEOF() {
            prefaceSniffer = nil
            if !held.isEmpty { held.withUnsafeBytes { perform(session.clientDidRead($0)) } }
        }
        perform(session.clientDidReadEOF())
    }

    func streamConnectionDidDrainOutbound(_ connection: StreamConnection) {
        for link in upstreams.all where link.pausedForBackpressure {
            link.pausedForBackpressure = false
            link.channel.socket.setReadingPaused(false)
        }
        updateReading()
    }

    func streamConnection(_ connection: StreamConnection, didCloseWith error: SystemError?) {
        perform(session.clientDidClose())
        timers.cancelAll()
        queue = []
        for id in heldIDs.values { context.rules.holds.remove(id: id) }
        heldIDs = [:]
        clientPacer?.cancel()
        clientPacer = nil
        if let clientHandshakeTimer { context.loop.cancelTimer(clientHandshakeTimer) }
        clientHandshakeTimer = nil
        if let sendClock { context.loop.cancelTimer(sendClock.timer) }
        sendClock = nil
        upstreams.closeAll()
        upstreams.owner = nil
        var fields: [TraceField] = [.string("reason", closeReason ?? inspectSession({ $0.closeReason }) ?? "closed")]
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
