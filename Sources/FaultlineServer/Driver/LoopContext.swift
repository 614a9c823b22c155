import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineHTTP2
import FaultlinePosix
import FaultlineProxy
import FaultlineTLS
import FaultlineTrace

/// What the connections of one event loop share: the upstream pool, the live handlers that keep
/// sessions alive, and the run-wide services (trace, resolver, IDs).
///
/// `@unchecked Sendable` because the listener's accept callback, which must be `@Sendable`, carries
/// it; every member that is mutable (`pool`, `handlers`) is touched only on `loop`'s thread, which
/// `assertInEventLoop()` checks at the entry points.
final class LoopContext: @unchecked Sendable {
    let loop: EventLoop
    let configuration: ServerConfiguration
    let trace: TraceRecorder
    /// What the sessions' flows take from the trace: its body-digest key and capture settings.
    let tracing: FlowTracing
    // Loop-confined state the request path changes in place: release builds skip Swift's dynamic
    // exclusivity check on it, debug builds (every test) keep it (ARCHITECTURE.md, "Exclusivity").
    /// The buffer this loop's trace entries are encoded in (`record`), so they allocate nothing.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var traceScratch = TraceScratch()
    let resolver: HostResolver
    /// Connection IDs, for client and upstream connections alike.
    let ids: IDGenerator
    let flowIDs: IDGenerator
    let pool: UpstreamPool
    /// Opens the loop's new upstream connections within `ServerConfiguration.upstreamConnects`.
    private(set) lazy var connector = UpstreamConnector(context: self, limits: configuration.upstreamConnects)
    let rules: RuleRuntime
    /// `proxyConfiguration`'s, one per mode and flags seen on this loop.
    private var sessionConfigurations:
        [(mode: ProxyMode, intercepting: Bool, keepsClientHost: Bool, configuration: ProxyConfiguration)] = []
    /// The client connection limit, shared by every loop.
    let budget: ConnectionBudget
    private var handlers: [ConnectionID: ClientConnectionHandler] = [:]
    /// Armed while the loop has client connections: every `idleSweepInterval` each one gives back
    /// the storage its past requests left empty (`ClientConnectionHandler.releaseIdleStorage`).
    private var idleSweep: TimerHandle?
    static let idleSweepInterval: Duration = .seconds(2)

    /// Records a trace entry a session asked for, on this loop's thread.
    func record(_ entry: TraceEntry) {
        trace.record(entry, encodingIn: &traceScratch)
    }
    /// Connections over the limit being answered (`RefusedConnectionHandler`).
    private var refusals: [ConnectionID: RefusedConnectionHandler] = [:]
    private var duplicates: [ObjectIdentifier: DuplicateFlowHandler] = [:]
    /// The copies that get their original's body as it arrives, by original flow.
    private var streamedCopies: [FlowID: [DuplicateFlowHandler]] = [:]
    private var handshakes: [ObjectIdentifier: UpstreamHandshake] = [:]
    /// Set by ``beginShutdown(done:)``: the server is stopping and waits for this loop.
    private var shuttingDown = false
    /// Called once no client connection is left on this loop during a shutdown.
    private var shutdownDone: (() -> Void)?

    init(
        loop: EventLoop, configuration: ServerConfiguration, trace: TraceRecorder, resolver: HostResolver,
        ids: IDGenerator,
        flowIDs: IDGenerator, rules: RuleRuntime, budget: ConnectionBudget = ConnectionBudget(limit: nil)
    ) {
        self.loop = loop
        self.configuration = configuration
        self.trace = trace
        self.tracing = FlowTracing(of: trace)
        self.resolver = resolver
        self.ids = ids
        self.flowIDs = flowIDs
        self.rules = rules
        self.budget = budget
        self.pool = UpstreamPool(
            loop: loop, idleTimeout: configuration.upstreamIdleTimeout,
            maximumPerEndpoint: configuration.maximumIdlePerEndpoint)
    }

    /// Starts serving a client connection accepted on this loop by `listener`.
    func accept(_ connection: StreamConnection, listener: ListenerConfiguration) {
        loop.assertInEventLoop()
        // The listeners stop before a shutdown begins; a hand-off already on its way is refused.
        guard !shuttingDown else {
            connection.close()
            return
        }
        guard budget.admit() else {
            refuse(connection, listener: listener)
            return
        }
        var fields: [TraceField] = [
            .string("listener", connection.localAddress?.description ?? "unknown"),
            .string("peer", connection.remoteAddress?.description ?? "unknown"),
            .string("mode", listener.mode.description),
        ]
        if listener.tls { fields.append(.bool("tls", true)) }
        trace.record(.connectionOpened, connection: connection.id, fields)
        let handler = ClientConnectionHandler(
            client: connection, configuration: proxyConfiguration(mode: listener.mode, intercepting: !listener.tls),
            context: self)
        handlers[connection.id] = handler
        armIdleSweep()
        // A TLS listener presents the certificate of the SNI name, or of the address dialled; a
        // plain one tells h2c with prior knowledge (RFC 9113 §3.3) by its preface.
        if listener.tls {
            handler.start(tlsFallbackHost: connection.localAddress?.ipAddress ?? "localhost")
        } else {
            handler.start(sniffsHTTP2: configuration.http2PriorKnowledge)
        }
    }

    /// Turns away a connection over the limit, before it has a session: a TLS listener's at
    /// once (answering would take a handshake), a plain listener's after its first bytes
    /// (`RefusedConnectionHandler`: a 503 for HTTP/1, a close for h2c), unless too many are being
    /// answered already.
    private func refuse(_ connection: StreamConnection, listener: ListenerConfiguration) {
        let limit = budget.limit ?? 0
        guard !listener.tls, budget.beginAnswering() else {
            recordRejection(
                connection, listener: listener, limit: limit, answer: "closed",
                detail: listener.tls ? "tls" : "too-many-refusals")
            connection.close()
            return
        }
        let handler = RefusedConnectionHandler(connection: connection, context: self, listener: listener, limit: limit)
        refusals[connection.id] = handler
        handler.start()
    }

    /// Traces `connection.rejected`: who, where, the limit and what the client got.
    func recordRejection(
        _ connection: StreamConnection, listener: ListenerConfiguration, limit: Int, answer: String, detail: String
    ) {
        trace.record(
            .connectionRejected, connection: connection.id,
            [
                .string("listener", connection.localAddress?.description ?? "unknown"),
                .string("peer", connection.remoteAddress?.description ?? "unknown"),
                .string("mode", listener.mode.description), .string("reason", "max-connections"),
                .int("limit", Int64(limit)), .string("answer", answer), .string("detail", detail),
            ])
    }

    /// A refused connection closed: its answering place goes back.
    func refusalEnded(_ id: ConnectionID) {
        loop.assertInEventLoop()
        guard refusals.removeValue(forKey: id) != nil else { return }
        budget.endAnswering()
    }

    /// The proxy settings of a client connection (or of the HTTP inside an intercepted one) in
    /// `mode`, with the current rules. `intercepting`: whether a `CONNECT` on it may be opened up;
    /// `keepsClientHost`: forward the client's own `Host` (the HTTP inside an intercepted tunnel).
    ///
    /// Made once per combination and shared by every connection that has it: a configuration is
    /// one shared box, and each setting changed here would otherwise make a new box per
    /// connection (memory per idle connection).
    func proxyConfiguration(mode: ProxyMode, intercepting: Bool, keepsClientHost: Bool = false) -> ProxyConfiguration {
        if let made = sessionConfigurations.first(where: {
            $0.mode == mode && $0.intercepting == intercepting && $0.keepsClientHost == keepsClientHost
        }) {
            return made.configuration
        }
        let made = makeProxyConfiguration(mode: mode, intercepting: intercepting, keepsClientHost: keepsClientHost)
        sessionConfigurations.append((mode, intercepting, keepsClientHost, made))
        return made
    }

    private func makeProxyConfiguration(mode: ProxyMode, intercepting: Bool, keepsClientHost: Bool)
        -> ProxyConfiguration
    {
        var proxy = configuration.proxy
        proxy.mode = mode
        proxy.keepsClientHost = keepsClientHost
        proxy.rules = rules.policy
        proxy.interception = intercepting ? configuration.tls?.interception : nil
        if let timeout = configuration.tls?.handshakeTimeout { proxy.clientHelloTimeout = timeout }
        return proxy
    }

    /// A session speaking HTTP/1.1 or HTTP/2 to the client. Throws when nghttp2 cannot make an
    /// HTTP/2 session (out of memory).
    func makeSession(
        connectionID: ConnectionID, configuration proxy: ProxyConfiguration, http2: Bool
    ) throws(HTTP2Error) -> any ClientSession {
        guard http2 else {
            return HTTP1ProxySession(
                connectionID: connectionID, configuration: proxy, tracing: tracing, flowIDs: flowIDs)
        }
        return try HTTP2ProxySession(
            connectionID: connectionID, configuration: proxy, tracing: tracing, flowIDs: flowIDs,
            limits: configuration.http2Limits)
    }

    func remove(_ handler: ClientConnectionHandler, id: ConnectionID) {
        loop.assertInEventLoop()
        if handlers.removeValue(forKey: id) != nil { budget.release() }
        if handlers.isEmpty, let idleSweep {
            loop.cancelTimer(idleSweep)
            self.idleSweep = nil
        }
        finishShutdownIfDrained()
    }

    private func armIdleSweep() {
        guard idleSweep == nil, !handlers.isEmpty else { return }
        idleSweep = loop.scheduleTimer(after: Self.idleSweepInterval) { [weak self] in
            guard let self else { return }
            idleSweep = nil
            for handler in handlers.values { handler.releaseIdleStorage() }
            armIdleSweep()
        }
    }

    /// The server is stopping (`ProxyServer.stop` with a grace period; its listeners have
    /// stopped): every client connection of this loop is told (`ClientSession.shutDown`). HTTP/2
    /// ones send GOAWAY and close once their open streams are done; anything else closes now.
    /// `done` runs on this loop once no client connection is left here, at once if none is.
    func beginShutdown(done: @escaping () -> Void) {
        loop.assertInEventLoop()
        shuttingDown = true
        shutdownDone = done
        for handler in Array(handlers.values) { handler.shutDown() }
        for refusal in Array(refusals.values) { refusal.close() }
        finishShutdownIfDrained()
    }

    private func finishShutdownIfDrained() {
        guard handlers.isEmpty, let done = shutdownDone else { return }
        shutdownDone = nil
        done()
    }

    /// Opens a new upstream connection: resolves the host (cache first, else on a resolver
    /// worker), connects with the configured timeout, runs the TLS handshake for `https`
    /// (offering `alpn`), and reports on this loop. The channel comes started: the completion
    /// must set the socket's delegate before it returns.
    func openConnection(
        to endpoint: UpstreamEndpoint, alpn: [String],
        completion: @escaping (Result<Channel, UpstreamFailure>) -> Void
    ) {
        loop.assertInEventLoop()
        let tls = endpoint.scheme == "https" ? configuration.tls : nil
        guard endpoint.scheme != "https" || tls != nil else {
            // Before any connection: the origin should not see a connection the proxy cannot use.
            completion(
                .failure(
                    UpstreamFailure(
                        code: "tls-not-configured", status: 502,
                        description: "\(endpoint) needs TLS, which this proxy was started without "
                            + "(start it with --upstream-ca FILE, --confdir DIR or --insecure-upstream)")))
            return
        }
        let connect: ([SocketAddress]) -> Void = { [self] addresses in
            StreamConnection.connect(
                to: addresses, id: ConnectionID(ids.next()), on: loop, timeout: configuration.connectTimeout
            ) { [self] result in
                let target = endpoint.hostHeaderValue
                switch result {
                case .failure(let error):
                    completion(
                        .failure(error.isTimeout ? .connectTimeout(target) : .connectRefused(target, error.description))
                    )
                case .success(let socket):
                    if let tls {
                        startTLS(on: socket, to: endpoint, tls: tls, alpn: alpn, completion: completion)
                    } else {
                        socket.start()
                        completion(.success(Channel(socket: socket)))
                    }
                }
            }
        }
        if let addresses = resolver.cachedAddresses(host: endpoint.dialHost, port: endpoint.port) {
            connect(addresses)
            return
        }
        resolver.resolve(
            host: endpoint.dialHost, port: endpoint.port, on: loop, completion: connect,
            failure: { error in completion(.failure(.dnsFailure(endpoint.dialHost, error.description))) })
    }

    private func startTLS(
        on socket: StreamConnection, to endpoint: UpstreamEndpoint, tls: ServerTLSConfiguration, alpn: [String],
        completion: @escaping (Result<Channel, UpstreamFailure>) -> Void
    ) {
        let connection: TLSConnection
        do {
            connection = try TLSConnection.client(context: tls.clientContext, serverName: endpoint.host, alpn: alpn)
        } catch {
            socket.close()
            completion(.failure(TLSTrace.upstreamFailure(error, target: endpoint.hostHeaderValue)))
            return
        }
        let handshake = UpstreamHandshake(
            channel: Channel(socket: socket, tls: connection), endpoint: endpoint, context: self, completion: completion
        )
        handshakes[ObjectIdentifier(handshake)] = handshake
        handshake.start(timeout: tls.handshakeTimeout)
    }

    func handshakeFinished(_ handshake: UpstreamHandshake) {
        handshakes[ObjectIdentifier(handshake)] = nil
    }

    /// Starts the copies of a `duplicate` action, each a flow of its own, `spacing` apart counting
    /// from the original: copy N starts N × spacing after the moment its `timing` names (the
    /// original forwarded, or its response arrived), so spacing is the gap between one delivery
    /// and the next, the original's included.
    func startDuplicates(_ request: DuplicateRequest) {
        if request.streamed {
            // All at once: each copy must see the body from its first byte on.
            let handlers = (0..<request.count).map { _ in
                DuplicateFlowHandler(
                    DuplicateFlowSession(
                        id: FlowID(flowIDs.next()), copying: request, configuration: configuration.proxy,
                        tracing: tracing),
                    context: self)
            }
            streamedCopies[request.original] = handlers
            for handler in handlers {
                duplicates[ObjectIdentifier(handler)] = handler
                handler.start()
            }
            return
        }
        for index in 0..<request.count {
            let delay = request.spacing * (index + 1)
            let start = { [self] in
                let session = DuplicateFlowSession(
                    id: FlowID(flowIDs.next()), copying: request, configuration: configuration.proxy,
                    tracing: tracing)
                let handler = DuplicateFlowHandler(session, context: self)
                duplicates[ObjectIdentifier(handler)] = handler
                handler.start()
            }
            if delay == .zero { start() } else { loop.scheduleTimer(after: delay, start) }
        }
    }

    func duplicateFinished(_ handler: DuplicateFlowHandler) {
        duplicates[ObjectIdentifier(handler)] = nil
    }

    /// More of an original's body for its streamed copies.
    func streamToDuplicates(of original: FlowID, _ bytes: [UInt8]) {
        for handler in streamedCopies[original] ?? [] { handler.streamBody(bytes) }
    }

    func endDuplicates(of original: FlowID, complete: Bool) {
        for handler in streamedCopies.removeValue(forKey: original) ?? [] { handler.endBody(complete: complete) }
    }

    /// Number of client connections being served on this loop.
    var connectionCount: Int { handlers.count }

    /// Closes the pooled upstream connections; live connections close with the loop.
    func shutdown() {
        loop.assertInEventLoop()
        pool.closeAll()
    }
}
