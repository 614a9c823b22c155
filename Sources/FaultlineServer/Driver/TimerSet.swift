import FaultlineCore
import FaultlineFlow
import FaultlinePosix
import FaultlineProxy

/// A timer key, which says whether its timer is armed and cancelled over and over (a keep-alive
/// connection's idle timer: cancelled when a request starts, armed again when it ends).
protocol TimerSetKey: Hashable {
    /// For a key armed over and over, its place in `TimerSet` (0, 1 or 2); nil for a key armed
    /// once or seldom. Keys may share a place (each flow's response-head timer, one flow after
    /// another on a keep-alive connection): it holds one key's deadline at a time, and a key that
    /// finds it held by another's live deadline is timed like a key without a place.
    var frequentSlot: Int? { get }
}

/// The timers one owner has armed on its loop, by key: arming a key again replaces its timer, and
/// `cancelAll` disarms everything when the owner goes away. A fired timer calls `onFire` with its
/// key: the owner sets it once, so arming costs one closure, not two. Loop-confined.
///
/// A key with a `frequentSlot` keeps its place and its loop timer across cancels and re-arms:
/// cancelling forgets the deadline only, and arming for a deadline no earlier than the loop
/// timer's records it. When the loop timer fires, it fires the key if the deadline has come,
/// schedules itself again for a deadline still ahead, and goes away for a cancelled key. So a
/// keep-alive request moves its connection's idle deadline instead of cancelling and scheduling
/// a loop timer with a new closure and two dictionary updates, as haproxy and nginx move their
/// connection timeouts. Other keys get a loop timer per arming, kept by key.
final class TimerSet<Key: TimerSetKey> {
    private struct Frequent {
        /// Nil while no loop timer is set for the slot.
        var handle: TimerHandle?
        /// When the loop timer fires.
        var firesAt = MonotonicInstant(nanoseconds: 0)
        /// When the key is due; nil once cancelled (the loop timer then only cleans up).
        var deadline: MonotonicInstant?
        /// Whose deadline it is: the last key armed here.
        var key: Key?
    }

    private let loop: EventLoop
    // Loop-confined state the request path changes in place: release builds skip Swift's dynamic
    // exclusivity check on it, debug builds (every test) keep it (ARCHITECTURE.md, "Exclusivity").
    /// The three frequent slots, inline: every connection has an idle timer, and a separate
    /// allocation for them would add to each idle connection's memory (Benchmarks/idle).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var frequent = (Frequent(), Frequent(), Frequent())
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var others: [Key: TimerHandle] = [:]
    /// What a fired timer calls (set by the owner once it is initialised).
    var onFire: (Key) -> Void = { _ in }

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// Arms `key` to fire after `delay` (replacing a timer already armed for it).
    func arm(_ key: Key, after delay: Duration) {
        guard let slot = key.frequentSlot, modifyFrequent(slot, { $0.deadline == nil || $0.key == key }) else {
            cancelOther(key)
            others[key] = loop.scheduleTimer(after: delay) { [weak self] in
                guard let self else { return }
                self.others[key] = nil
                self.onFire(key)
            }
            return
        }
        // A key armed while another held the place has a timer of its own, which this replaces.
        cancelOther(key)
        let deadline = loop.now.advanced(by: delay)
        let moved = modifyFrequent(slot) { entry -> Bool in
            guard let handle = entry.handle else { return false }
            if entry.firesAt <= deadline {
                entry.deadline = deadline
                entry.key = key
                return true
            }
            loop.cancelTimer(handle)
            return false
        }
        if !moved { scheduleFrequent(key, slot: slot, at: deadline) }
    }

    func cancel(_ key: Key) {
        if let slot = key.frequentSlot, forgetDeadline(of: key, slot: slot) { return }
        cancelOther(key)
    }

    /// Forgets `key`'s deadline in `slot` and keeps the loop timer; false when the slot holds no
    /// live deadline of `key`.
    private func forgetDeadline(of key: Key, slot: Int) -> Bool {
        modifyFrequent(slot) { entry -> Bool in
            guard entry.key == key, entry.deadline != nil else { return false }
            entry.deadline = nil
            return true
        }
    }

    /// Cancels the timer `key` has outside the slots, if any.
    private func cancelOther(_ key: Key) {
        // Checked first: the table is empty on nearly every request.
        guard !others.isEmpty, let handle = others.removeValue(forKey: key) else { return }
        loop.cancelTimer(handle)
    }

    func cancelAll() {
        for slot in 0..<3 {
            modifyFrequent(slot) { entry in
                if let handle = entry.handle { loop.cancelTimer(handle) }
                entry = Frequent()
            }
        }
        for handle in others.values { loop.cancelTimer(handle) }
        others = [:]
    }

    /// Gives back the storage of the other keys' table once it is empty (Swift keeps a
    /// dictionary's storage when it is emptied); see `ClientConnectionHandler.releaseIdleStorage`.
    func releaseUnusedStorage() {
        if others.isEmpty { others = [:] }
    }

    @discardableResult
    private func modifyFrequent<Result>(_ slot: Int, _ body: (inout Frequent) -> Result) -> Result {
        switch slot {
        case 0: body(&frequent.0)
        case 1: body(&frequent.1)
        default: body(&frequent.2)
        }
    }

    private func scheduleFrequent(_ key: Key, slot: Int, at deadline: MonotonicInstant) {
        let handle = loop.scheduleTimer(after: loop.now.duration(to: deadline)) { [weak self] in
            self?.frequentTimerFired(slot: slot)
        }
        modifyFrequent(slot) { $0 = Frequent(handle: handle, firesAt: deadline, deadline: deadline, key: key) }
    }

    private func frequentTimerFired(slot: Int) {
        let due = modifyFrequent(slot) { entry -> (key: Key, deadline: MonotonicInstant)? in
            defer { entry = Frequent() }
            guard let key = entry.key, let deadline = entry.deadline else { return nil }
            return (key, deadline)
        }
        guard let (key, deadline) = due else { return }  // cancelled since
        if loop.now < deadline {
            scheduleFrequent(key, slot: slot, at: deadline)  // moved on since this loop timer was set
        } else {
            onFire(key)
        }
    }
}

extension SessionTimer: TimerSetKey {
    /// A connection's idle and head timers come and go with every request, and so does a
    /// forwarded request's wait for its response head, one flow after another (flows at once,
    /// HTTP/2 streams or a duplicate, take turns with the place or go without); a body timer
    /// comes only with uploads, and a flow's other timers and a stream's are armed seldom.
    var frequentSlot: Int? {
        switch self {
        case .clientIdle: 0
        case .requestHead: 1
        case .flow(_, .responseHead): 2
        case .requestBody, .streamBody, .flow, .streamPacing: nil
        }
    }
}

extension FlowTimer: TimerSetKey {
    var frequentSlot: Int? { nil }
}
