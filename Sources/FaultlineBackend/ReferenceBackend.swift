import Dispatch
import FaultlineCore
public import FaultlinePosix

/// Faultline's reference auth backend: OAuth-style login, refresh with rotation and reuse
/// detection, logout, business endpoints that need a valid token, a job pipeline, and test
/// introspection under `/_backend/`. It is what clients under test talk to through the proxy in
/// demos, examples and tests; `faultline backend` runs it standalone.
///
/// Create it, `start()` it (on its own event loops, or on a group you already run), talk to the
/// address it returns, and `stop()` it. Counters are available in-process with `stats()`. State
/// lives in memory and is shared by every connection. Usable from any thread.
public final class ReferenceBackend: Sendable {
    private struct Running: Sendable {
        let group: EventLoopGroup
        let ownsGroup: Bool
        let listener: Listener
        let contexts: [BackendLoopContext]
    }

    /// The configuration it was created with.
    public let configuration: BackendConfiguration
    let service: BackendService
    private let running = StateLock<Running?>(nil)

    /// A backend with empty state; nothing runs until `start`.
    public init(configuration: BackendConfiguration = BackendConfiguration()) {
        self.configuration = configuration
        service = BackendService(configuration: configuration)
    }

    deinit { stop() }

    /// Binds `configuration.address` and starts serving. With `group` the backend's connections
    /// live on those loops (the caller keeps running and shutting down the group); without one it
    /// starts `configuration.loopCount` loops of its own and stops them in `stop()`.
    /// Returns the bound address (the real port when port 0 was asked for). Throws `BackendError`
    /// when already running or when the address cannot be bound.
    @discardableResult
    public func start(on group: EventLoopGroup? = nil) throws -> SocketAddress {
        try running.withLock { (current: inout Running?) throws(BackendError) -> SocketAddress in
            guard current == nil else { throw BackendError("the backend is already running") }
            let loops: EventLoopGroup
            do {
                loops = try group ?? EventLoopGroup(loopCount: configuration.loopCount, namePrefix: "faultline-backend")
            } catch {
                throw BackendError("cannot start event loops: \(error)")
            }
            let contexts = loops.loops.map { BackendLoopContext(loop: $0, service: service) }
            let listener: Listener
            do {
                listener = try Listener(address: configuration.address, group: loops, ids: IDGenerator()) {
                    connection in
                    guard let context = contexts.first(where: { $0.loop === connection.loop }) else {
                        preconditionFailure("connection accepted on a loop outside the group")
                    }
                    context.accept(connection)
                }
            } catch {
                if group == nil { loops.shutdown() }
                throw BackendError("cannot listen on \(configuration.address): \(ListenFailure.explain(error))")
            }
            current = Running(group: loops, ownsGroup: group == nil, listener: listener, contexts: contexts)
            return listener.localAddress
        }
    }

    /// The bound address while running, else nil.
    public var address: SocketAddress? {
        running.withLock { $0?.listener.localAddress }
    }

    /// Stops listening and closes every connection; stops the loops it started itself. Returns
    /// once the port is free and, from a thread outside the loops, once the connections are
    /// closed. State (tokens, jobs, counters) is kept, so `stats()` still answers, and `start`
    /// may be called again. Idempotent. Not from a thread of the loops it started itself (they
    /// cannot join themselves).
    public func stop() {
        guard
            let state = running.withLock({ current -> Running? in
                defer { current = nil }
                return current
            })
        else { return }
        state.listener.stop()
        let onLoopThread = state.contexts.contains { $0.loop.inEventLoop }
        let closed = DispatchSemaphore(value: 0)
        for context in state.contexts {
            context.loop.execute {
                context.closeAll()
                closed.signal()
            }
        }
        if state.ownsGroup {
            state.group.shutdown()
        } else if !onLoopThread {
            // A loop shut down meanwhile drops the task; its connections are closed by that shutdown.
            for _ in state.contexts { _ = closed.wait(timeout: .now() + .seconds(5)) }
        }
    }

    /// The counters so far (a consistent snapshot).
    public func stats() -> BackendStats {
        service.stats()
    }

    /// Makes every current access token expire now, or only those of `account`; the in-process
    /// twin of `POST /_backend/expire`. Returns how many tokens were still unexpired.
    @discardableResult
    public func expireAccessTokens(account: String? = nil) -> Int {
        service.expireAccessTokens(account: account)
    }

    /// Forgets every token family, job, note and counter; the twin of `POST /_backend/reset`.
    public func reset() {
        service.reset()
    }
}

/// Why a `ReferenceBackend` could not start, as a sentence a person can act on.
public struct BackendError: Error, Sendable, CustomStringConvertible {
    /// What went wrong and what to do about it, e.g. "cannot listen on 127.0.0.1:9000: address
    /// already in use (...)".
    public let description: String
    init(_ description: String) { self.description = description }
}
