public import FaultlineCore
public import FaultlineFlow
import FaultlinePosix
public import FaultlineRules
import Synchronization

/// A flow stopped by a `hold` action, as the control API and the testing library see it.
public struct HoldInfo: Sendable, Equatable {
    /// Unique for the run; lets a test release several held flows in a chosen order.
    public let id: UInt64
    public let name: String
    public let flow: FlowID
    public let connection: ConnectionID
    public let phase: RulePhase
    /// `GET http://api.example.test/oauth/token`, for people reading `faultline holds`.
    public let summary: String
    public let heldAt: MonotonicInstant
    /// The event that releases it by itself, if any.
    public let releaseOn: String?
}

/// Every flow currently held, across all event loops, and the people waiting for one.
///
/// Holds are added on the loop that owns the flow and ended from anywhere (the control API's
/// loop, a test's thread, another flow's event); the outcome hops back to the owning loop through
/// the `deliver` closure each hold registers, which calls `EventLoop.execute`.
public final class HoldRegistry: Sendable {
    private struct Entry {
        let info: HoldInfo
        let releaseOn: EventReference?
        let deliver: @Sendable (HoldEnding) -> Void
    }

    private struct Waiter {
        let token: UInt64
        let name: String
        let callback: @Sendable (HoldInfo) -> Void
    }

    private struct State {
        var entries: [Entry] = []
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex<State>(State())
    /// Holds that wait for an event, mirrored outside the lock: every flow stage asks, and almost
    /// always none does.
    private let eventWaiters = Atomic<Int>(0)

    /// Told the number of holds waiting for an event whenever it changes.
    private let waitersChanged: @Sendable (Int) -> Void
    /// Told every hold that starts and every hold that ends, however it ends (`watch`).
    private let watcher = Mutex<(@Sendable (HoldChange) -> Void)?>(nil)

    /// A hold starting or ending, for the one watcher (the exploration scheduler).
    public enum HoldChange: Sendable {
        case started(HoldInfo)
        /// Released, answered or failed by anyone, ended by its event, or forgotten because its
        /// flow ended another way (its deadline, its client leaving).
        case ended(HoldInfo)
    }

    public init(waitersChanged: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.waitersChanged = waitersChanged
    }

    /// Runs `body` under the lock and refreshes `eventWaiters`.
    private func withState<R>(_ body: (inout State) -> R) -> R {
        state.withLock { state in
            let result = body(&state)
            let waiting = state.entries.reduce(0) { $0 + ($1.releaseOn == nil ? 0 : 1) }
            if eventWaiters.exchange(waiting, ordering: .relaxed) != waiting { waitersChanged(waiting) }
            return result
        }
    }

    /// Calls `watcher` (from any thread, outside the registry's lock) for every hold that starts
    /// or ends from now on; a second call replaces the first watcher.
    func watch(_ watcher: @escaping @Sendable (HoldChange) -> Void) {
        self.watcher.withLock { $0 = watcher }
    }

    private func tell(_ changes: [HoldChange]) {
        guard !changes.isEmpty, let watcher = watcher.withLock({ $0 }) else { return }
        for change in changes { watcher(change) }
    }

    /// Registers a held flow. `deliver` is called exactly once, from any thread, when it ends.
    func add(
        name: String, flow: FlowID, connection: ConnectionID, phase: RulePhase, summary: String,
        releaseOn: EventReference?, deliver: @escaping @Sendable (HoldEnding) -> Void
    ) -> HoldInfo {
        let (info, woken) = withState { state -> (HoldInfo, [Waiter]) in
            state.nextID += 1
            let info = HoldInfo(
                id: state.nextID, name: name, flow: flow, connection: connection, phase: phase, summary: summary,
                heldAt: .now(), releaseOn: releaseOn?.description)
            state.entries.append(Entry(info: info, releaseOn: releaseOn, deliver: deliver))
            let woken = state.waiters.filter { $0.name == name }
            state.waiters.removeAll { $0.name == name }
            return (info, woken)
        }
        for waiter in woken { waiter.callback(info) }
        tell([.started(info)])
        return info
    }

    /// Forgets a hold whose flow ended another way (the client went away); no outcome is delivered.
    func remove(id: UInt64) {
        let removed = withState { state -> [HoldInfo] in
            let gone = state.entries.filter { $0.info.id == id }.map(\.info)
            state.entries.removeAll { $0.info.id == id }
            return gone
        }
        tell(removed.map(HoldChange.ended))
    }

    /// The flows held now, oldest first.
    public func list() -> [HoldInfo] {
        withState { $0.entries.map(\.info) }
    }

    /// Ends holds: the one with `id`, or the oldest named `name` (all of them with `all`), as
    /// `cause` (the control API by default). Returns the holds ended; empty when none matched.
    @discardableResult
    public func end(
        name: String? = nil, id: UInt64? = nil, all: Bool = false, with outcome: HoldOutcome,
        by cause: HoldEnding.Cause = .control
    ) -> [HoldInfo] {
        let ended = withState { state -> [Entry] in
            let matching = state.entries.filter { entry in
                (id == nil || entry.info.id == id) && (name == nil || entry.info.name == name)
            }
            let chosen = all ? matching : Array(matching.prefix(1))
            let ids = Set(chosen.map(\.info.id))
            state.entries.removeAll { ids.contains($0.info.id) }
            return chosen
        }
        for entry in ended { entry.deliver(HoldEnding(outcome, by: cause)) }
        tell(ended.map { .ended($0.info) })
        return ended.map(\.info)
    }

    /// Releases every hold waiting for `event` (`release: { on: ... }`), oldest first.
    func observe(_ event: ObservedEvent) {
        observeReference { Self.matches($0, event) }
    }

    /// Releases every hold waiting for a rule of `scenario` named `rule` to fire.
    func ruleFired(_ id: RuleID) {
        observeReference { reference in
            if case .rule(let name) = reference { return name == id.rule }
            return false
        }
    }

    private func observeReference(_ matches: (EventReference) -> Bool) {
        // Called for every flow stage: no lock when nothing waits for an event.
        guard eventWaiters.load(ordering: .relaxed) > 0 else { return }
        let ended = withState { state -> [Entry] in
            let matching = state.entries.filter { $0.releaseOn.map(matches) ?? false }
            let ids = Set(matching.map(\.info.id))
            state.entries.removeAll { ids.contains($0.info.id) }
            return matching
        }
        for entry in ended {
            entry.deliver(HoldEnding(.release(nil), by: .event(entry.releaseOn?.description ?? "")))
        }
        tell(ended.map { .ended($0.info) })
    }

    static func matches(_ reference: EventReference, _ event: ObservedEvent) -> Bool {
        switch (reference, event) {
        case (.role(let role, let stage), .flow(let seenRole, let seenStage, _)):
            return role == seenRole && stage == seenStage
        case (.ruleDelivered(let name), .ruleDelivered(let rule, _)):
            return name == rule.rule
        case (.mark(let label), .mark(let seen)):
            return label == seen
        default:
            return false
        }
    }

    /// Calls `callback` (from any thread) once a hold named `name` exists: at once if one does now.
    /// Returns a token for `cancelWait`, or nil when the callback already ran.
    public func whenHeld(_ name: String, _ callback: @escaping @Sendable (HoldInfo) -> Void) -> UInt64? {
        let (existing, token) = withState { state -> (HoldInfo?, UInt64?) in
            if let entry = state.entries.first(where: { $0.info.name == name }) { return (entry.info, nil) }
            state.nextID += 1
            state.waiters.append(Waiter(token: state.nextID, name: name, callback: callback))
            return (nil, state.nextID)
        }
        if let existing { callback(existing) }
        return token
    }

    /// Stops waiting; true if the wait was still pending.
    @discardableResult
    public func cancelWait(_ token: UInt64) -> Bool {
        withState { state in
            let before = state.waiters.count
            state.waiters.removeAll { $0.token == token }
            return state.waiters.count != before
        }
    }

    /// Waits up to `timeout` for a hold named `name`; nil when none appeared in time.
    public func waitForHold(named name: String, timeout: Duration) async -> HoldInfo? {
        let box = WaitBox()
        return await withCheckedContinuation { continuation in
            box.set(continuation)
            let token = whenHeld(name) { info in box.resume(info) }
            if let token {
                Task {
                    try? await Task.sleep(for: timeout)
                    if self.cancelWait(token) { box.resume(nil) }
                }
            }
        }
    }
}

/// Resumes a continuation once, whichever of the hold and the deadline comes first.
private final class WaitBox: Sendable {
    private let continuation = Mutex<CheckedContinuation<HoldInfo?, Never>?>(nil)

    func set(_ continuation: CheckedContinuation<HoldInfo?, Never>) {
        self.continuation.withLock { $0 = continuation }
    }

    func resume(_ info: HoldInfo?) {
        continuation.withLock { current in
            current?.resume(returning: info)
            current = nil
        }
    }
}
