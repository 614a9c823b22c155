import FaultlineCore
public import FaultlineExplore
import FaultlineFlow
public import FaultlinePosix
import FaultlineProxy
public import FaultlineRules
import FaultlineTLS
public import FaultlineTrace
import Synchronization

/// Faultline's proxy, running: listeners, event loops, the upstream pools and the trace.
///
/// Create it with a configuration and a trace recorder, call `start()` (which binds every listener
/// or throws), and `stop()` when done. Usable from any thread.
public final class ProxyServer: Sendable {
    private struct Running {
        let group: EventLoopGroup
        let resolver: HostResolver
        let listeners: [Listener]
        let contexts: [LoopContext]
        let control: ControlServer?
        let explorer: ExploreDriver?
    }

    public let configuration: ServerConfiguration
    public let trace: TraceRecorder
    /// Rules, auth profile and holds (empty when started without rules).
    public let rules: RuleRuntime
    /// The control API's listener settings; nil when the server runs without one.
    public let control: ControlConfiguration?
    private let running = Mutex<Running?>(nil)
    /// The drain `stop` waits for, and whether `endShutdownGrace` was called (before or during it).
    private let drain = Mutex<(latch: CountdownLatch?, endedEarly: Bool)>((nil, false))
    /// `rules.loaded`'s fields for the rule set the server started with; nil without rules.
    private let rulesLoaded: [TraceField]?
    /// The exploration record kept when the server stopped.
    private let exploreRecord = Mutex<ExploreRunRecord?>(nil)

    /// A server without rules when `ruleSet` is nil, and without a control API when `control` is nil.
    public init(
        configuration: ServerConfiguration, trace: TraceRecorder, ruleSet: RuleSet? = nil,
        control: ControlConfiguration? = nil
    ) {
        self.configuration = configuration
        self.trace = trace
        self.control = control
        // Exploration holds flows through a scenario of its own, so it needs a rules engine even
        // when no rule file was given.
        let builtIn = configuration.explore.map { [$0.scenario] } ?? []
        let running = (ruleSet ?? (builtIn.isEmpty ? nil : .empty)).map { files -> RuleSet in
            var combined = files
            combined.scenarios += builtIn
            return combined
        }
        self.rules = RuleRuntime(
            policy: running.map { FlowPolicy(ruleSet: $0, naming: trace.fingerprint) }, builtIn: builtIn)
        self.rulesLoaded = ruleSet.map(RulesWatcher.summaryFields)
    }

    /// Starts the loops and binds every listener (the control listener last). Throws `ServerError`
    /// naming the address that could not be bound (in use, not local, ...); nothing is left running then.
    public func start() throws(ServerError) {
        let group: EventLoopGroup
        do {
            group = try configuration.loopCount.map { try EventLoopGroup(loopCount: $0) } ?? EventLoopGroup()
        } catch {
            throw ServerError("cannot start event loops: \(error)")
        }
        let resolver = HostResolver()
        let ids = IDGenerator()
        let flowIDs = IDGenerator()
        let budget = ConnectionBudget(limit: configuration.maximumConnections)
        let contexts = group.loops.map {
            LoopContext(
                loop: $0, configuration: configuration, trace: trace, resolver: resolver, ids: ids, flowIDs: flowIDs,
                rules: rules, budget: budget)
        }
        let explorer = configuration.explore.map { explore in
            ExploreDriver(configuration: explore, holds: rules.holds, trace: trace, loop: group.loops[0])
        }
        explorer?.start()
        var listeners: [Listener] = []
        for listenerConfiguration in configuration.listeners {
            do {
                let mode = listenerConfiguration.mode
                if listenerConfiguration.tls, configuration.tls == nil {
                    throw ServerError(
                        "the TLS listener \(listenerConfiguration.address) needs a CA (ServerConfiguration.tls)")
                }
                let listener = try Listener(
                    address: listenerConfiguration.address, group: group, ids: ids, retryDelay: Self.acceptRetryDelay,
                    onError: { [trace] error, address in Self.recordAcceptPause(error, address: address, trace: trace) }
                ) { connection in
                    guard let context = contexts.first(where: { $0.loop === connection.loop }) else {
                        preconditionFailure("connection accepted on a loop outside the group")
                    }
                    context.accept(connection, listener: listenerConfiguration)
                }
                listeners.append(listener)
                trace.record(
                    .listenerStarted,
                    [.string("address", listener.localAddress.description), .string("mode", mode.description)])
            } catch {
                for listener in listeners { listener.stop() }
                explorer?.stop()
                group.shutdown()
                resolver.shutdown()
                throw ServerError("cannot listen on \(listenerConfiguration.address): \(ListenFailure.explain(error))")
            }
        }
        if let tls = configuration.tls { recordTLSConfiguration(tls) }
        if let rulesLoaded { trace.record(.rulesLoaded, rulesLoaded) }
        var controlServer: ControlServer? = nil
        if let control {
            let infos = zip(configuration.listeners, listeners).map { configuration, listener in
                ControlAPI.ListenerInfo(
                    address: listener.localAddress.description, mode: configuration.mode.description)
            }
            let api = ControlAPI(runtime: rules, trace: trace, listeners: infos, configuration: control)
            do {
                controlServer = try ControlServer(api: api, group: group)
            } catch {
                for listener in listeners { listener.stop() }
                explorer?.stop()
                group.shutdown()
                resolver.shutdown()
                throw ServerError(
                    "cannot listen for the control API on \(control.address): \(ListenFailure.explain(error))")
            }
        }
        running.withLock {
            $0 = Running(
                group: group, resolver: resolver, listeners: listeners, contexts: contexts, control: controlServer,
                explorer: explorer)
        }
    }

    /// Traces `listener.paused`: a loop stopped accepting on `address` for the listener's retry
    /// delay because `accept` failed (EMFILE: out of descriptors), rather than spin on the
    /// connection still waiting in the backlog.
    private static func recordAcceptPause(_ error: SystemError, address: SocketAddress, trace: TraceRecorder) {
        trace.record(
            .listenerPaused,
            [
                .string("listener", address.description),
                .string("code", error.isTooManyOpenFiles ? "too-many-open-files" : "accept-failed"),
                .string("error", error.description), .int("retry_ms", Int64(Self.acceptRetryDelay / .milliseconds(1))),
            ])
    }

    /// How long a loop stops accepting after `accept` failed: long enough not to spin, short
    /// enough that the proxy serves again soon after descriptors are freed.
    static let acceptRetryDelay: Duration = .milliseconds(100)

    /// In exploration mode, what the scheduler did: the run so far while running, the whole run
    /// after `stop`. Nil otherwise.
    public var explored: ExploreRunRecord? {
        running.withLock { $0?.explorer?.record } ?? exploreRecord.withLock { $0 }
    }

    /// Where the control API listens (the real port when 0 was asked for); nil when not running
    /// or started without one.
    public var controlAddress: SocketAddress? {
        running.withLock { $0?.control?.localAddress }
    }

    /// The addresses actually bound, in configuration order (the real port when 0 was asked for).
    public var boundAddresses: [SocketAddress] {
        running.withLock { $0?.listeners.map(\.localAddress) ?? [] }
    }

    /// Stops the server: the listeners stop first. With a grace period
    /// (`ServerConfiguration.shutdownGracePeriod` above zero) every client connection is then
    /// told (`ClientSession.shutDown`): an HTTP/2 one gets GOAWAY NO_ERROR naming the last stream
    /// it accepted and closes once its open streams have finished (RFC 9113 §6.8); HTTP/1.1
    /// connections, tunnels and unfinished handshakes close at once, as they always did. The
    /// call waits for that until the grace period is over; the control API stays up meanwhile
    /// (holds can still be released). Then the control API stops, every connection still open
    /// is closed, the loop threads are joined and the trace is flushed.
    ///
    /// Returns how the drain ended: `.drained` when nothing was left open. Blocks the calling
    /// thread; never call it from an event loop of the server. Safe to call twice.
    @discardableResult
    public func stop() -> ShutdownEnding {
        guard
            let state = running.withLock({ current -> Running? in
                defer { current = nil }
                return current
            })
        else { return .drained }
        for listener in state.listeners { listener.stop() }
        var ending = ShutdownEnding.drained
        let grace = configuration.shutdownGracePeriod
        if grace > .zero {
            let latch = CountdownLatch(count: state.contexts.count)
            if drain.withLock({
                $0.latch = latch; return $0.endedEarly
            }) {
                latch.abandon()
            }
            for context in state.contexts {
                context.loop.execute { context.beginShutdown { latch.countDown() } }
            }
            if !latch.wait(timeout: grace) {
                ending = drain.withLock { $0.endedEarly } ? .cutEarly : .cutAtDeadline
            }
        }
        state.control?.stop()
        state.explorer?.stop()
        exploreRecord.withLock { $0 = state.explorer?.record }
        for context in state.contexts {
            context.loop.execute { context.shutdown() }
        }
        state.group.shutdown()
        state.resolver.shutdown()
        trace.flush()
        return ending
    }

    /// Ends the shutdown grace period now, as a second SIGINT/SIGTERM asks: `stop` stops waiting
    /// for HTTP/2 streams and closes what is still open. From any thread, before or during `stop`.
    public func endShutdownGrace() {
        drain.withLock { state in
            state.endedEarly = true
            return state.latch
        }?.abandon()
    }

    /// Which CA signs, how upstreams are checked (a warning when they are not) and which hosts
    /// are opened up, so a trace says how its TLS flows were seen.
    private func recordTLSConfiguration(_ tls: ServerTLSConfiguration) {
        var fields: [TraceField] = [
            .string("ca_subject", tls.authority.subjectDescription),
            .string("ca_sha256", tls.authority.sha256Fingerprint),
            .bool("verify_upstream", tls.clientContext.verify),
            .strings("intercept", tls.interception.intercept.map(\.description)),
            .strings("ignore", tls.interception.ignore.map(\.description)),
        ]
        if let anchors = tls.clientContext.extraTrustAnchorsPEMFile { fields.append(.string("upstream_ca", anchors)) }
        if !tls.clientContext.verify {
            fields.append(.string("warning", "upstream certificates are not verified (--insecure-upstream)"))
        }
        trace.record(.tlsConfigured, fields)
    }
}

/// A server that could not start, with a sentence a person can act on.
public struct ServerError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
