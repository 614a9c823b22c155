import FaultlineCore
import FaultlinePosix
import FaultlineProxy
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
    let resolver: HostResolver
    /// Connection IDs, for client and upstream connections alike.
    let ids: IDGenerator
    let flowIDs: IDGenerator
    let pool: UpstreamPool
    let rules: RuleRuntime
    private var handlers: [ConnectionID: ClientConnectionHandler] = [:]
    private var duplicates: [ObjectIdentifier: DuplicateSender] = [:]

    init(
        loop: EventLoop, configuration: ServerConfiguration, trace: TraceRecorder, resolver: HostResolver, ids: IDGenerator,
        flowIDs: IDGenerator, rules: RuleRuntime
    ) {
        self.loop = loop
        self.configuration = configuration
        self.trace = trace
        self.resolver = resolver
        self.ids = ids
        self.flowIDs = flowIDs
        self.rules = rules
        self.pool = UpstreamPool(
            loop: loop, idleTimeout: configuration.upstreamIdleTimeout,
            maximumPerEndpoint: configuration.maximumIdlePerEndpoint)
    }

    /// Starts serving a client connection accepted on this loop by a listener in `mode`.
    func accept(_ connection: StreamConnection, mode: ProxyMode) {
        loop.assertInEventLoop()
        trace.record(
            .connectionOpened, connection: connection.id,
            [
                .string("listener", connection.localAddress?.description ?? "unknown"),
                .string("peer", connection.remoteAddress?.description ?? "unknown"),
                .string("mode", mode.description),
            ])
        var proxy = configuration.proxy
        proxy.mode = mode
        proxy.policy = rules.policy
        let session = HTTP1ProxySession(connectionID: connection.id, configuration: proxy, trace: trace, flowIDs: flowIDs)
        let handler = ClientConnectionHandler(client: connection, session: session, context: self)
        handlers[connection.id] = handler
        handler.start()
    }

    func remove(_ handler: ClientConnectionHandler, id: ConnectionID) {
        loop.assertInEventLoop()
        handlers[id] = nil
    }

    /// Opens a new upstream connection: resolves the host (cache first, else on a resolver
    /// worker), connects with the configured timeout, and reports on this loop.
    func openConnection(
        to endpoint: UpstreamEndpoint, completion: @escaping (Result<StreamConnection, UpstreamFailure>) -> Void
    ) {
        loop.assertInEventLoop()
        let connect: ([SocketAddress]) -> Void = { [self] addresses in
            StreamConnection.connect(
                to: addresses, id: ConnectionID(ids.next()), on: loop, timeout: configuration.connectTimeout
            ) { result in
                let target = endpoint.hostHeaderValue
                completion(
                    result.mapError { error in
                        error.isTimeout ? .connectTimeout(target) : .connectRefused(target, error.description)
                    })
            }
        }
        if let addresses = resolver.cachedAddresses(host: endpoint.host, port: endpoint.port) {
            connect(addresses)
            return
        }
        resolver.resolve(
            host: endpoint.host, port: endpoint.port, on: loop, completion: connect,
            failure: { error in completion(.failure(.dnsFailure(endpoint.host, error.description))) })
    }

    /// Sends the copies of a `duplicate` action, `spacing` apart.
    func sendDuplicates(_ request: DuplicateRequest) {
        for index in 0..<request.count {
            let delay = request.spacing * index
            let send = { [self] in
                let sender = DuplicateSender(request, context: self)
                duplicates[ObjectIdentifier(sender)] = sender
                sender.start()
            }
            if delay == .zero { send() } else { loop.scheduleTimer(after: delay, send) }
        }
    }

    func duplicateFinished(_ sender: DuplicateSender) {
        duplicates[ObjectIdentifier(sender)] = nil
    }

    /// Number of client connections being served on this loop.
    var connectionCount: Int { handlers.count }

    /// Closes the pooled upstream connections; live connections close with the loop.
    func shutdown() {
        loop.assertInEventLoop()
        pool.closeAll()
    }
}
