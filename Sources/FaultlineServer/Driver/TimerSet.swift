import FaultlineCore
import FaultlineFlow
import FaultlinePosix
import FaultlineProxy

/// A timer key, which says whether its timer is armed and cancelled over and over (a keep-alive
/// connection's idle timer: cancelled when a request starts, armed again when it ends).
protocol TimerSetKey: Hashable {
    /// For a key armed over and over, its own place in `TimerSet` (below
    /// `TimerSet.frequentSlotCount`); nil for a key armed once or seldom.
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
/// keep-alive request moves its connection's idle deadline (an array write) instead of cancelling
/// and scheduling a loop timer with a new closure and two dictionary updates, as haproxy and nginx
/// move their connection timeouts. Other keys get a loop timer per arming, kept by key.
final class TimerSet<Key: TimerSetKey> {
    /// How many keys can have a `frequentSlot`.
    static var frequentSlotCount: Int { 3 }

    private struct Frequent {
        let handle: TimerHandle
        /// When the loop timer fires.
        let firesAt: MonotonicInstant
        /// When the key is due; nil once cancelled (the loop timer then only cleans up).
        var deadline: MonotonicInstant?
    }

    private let loop: EventLoop
    /// By `frequentSlot`; made at the first arming of such a key.
    private var frequent: [Frequent?] = []
    private var others: [Key: TimerHandle] = [:]
    /// What a fired timer calls (set by the owner once it is initialised).
    var onFire: (Key) -> Void = { _ in }

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// Arms `key` to fire after `delay` (replacing a timer already armed for it).
    func arm(_ key: Key, after delay: Duration) {
        guard let slot = key.frequentSlot else {
            cancel(key)
            others[key] = loop.scheduleTimer(after: delay) { [weak self] in
                guard let self else { return }
                self.others[key] = nil
                self.onFire(key)
            }
            return
        }
        let deadline = loop.now.advanced(by: delay)
        if frequent.isEmpty { frequent = Array(repeating: nil, count: Self.frequentSlotCount) }
        if let armed = frequent[slot], armed.firesAt <= deadline {
            frequent[slot]?.deadline = deadline
            return
        }
        if let armed = frequent[slot] { loop.cancelTimer(armed.handle) }
        scheduleFrequent(key, slot: slot, at: deadline)
    }

    func cancel(_ key: Key) {
        if let slot = key.frequentSlot {
            if slot < frequent.count { frequent[slot]?.deadline = nil }
        } else if let handle = others.removeValue(forKey: key) {
            loop.cancelTimer(handle)
        }
    }

    func cancelAll() {
        for armed in frequent { if let armed { loop.cancelTimer(armed.handle) } }
        for handle in others.values { loop.cancelTimer(handle) }
        frequent = []
        others = [:]
    }

    private func scheduleFrequent(_ key: Key, slot: Int, at deadline: MonotonicInstant) {
        let handle = loop.scheduleTimer(after: loop.now.duration(to: deadline)) { [weak self] in
            self?.frequentTimerFired(key, slot: slot)
        }
        frequent[slot] = Frequent(handle: handle, firesAt: deadline, deadline: deadline)
    }

    private func frequentTimerFired(_ key: Key, slot: Int) {
        guard slot < frequent.count, let armed = frequent[slot] else { return }
        frequent[slot] = nil
        guard let deadline = armed.deadline else { return }  // cancelled since
        if loop.now < deadline {
            scheduleFrequent(key, slot: slot, at: deadline)  // moved on since this loop timer was set
        } else {
            onFire(key)
        }
    }
}

extension SessionTimer: TimerSetKey {
    /// A connection's idle, head and body timers come and go with every request (or every read
    /// of a body); a flow's or a stream's timers are armed once each.
    var frequentSlot: Int? {
        switch self {
        case .clientIdle: 0
        case .requestHead: 1
        case .requestBody: 2
        case .streamBody, .flow, .streamPacing: nil
        }
    }
}

extension FlowTimer: TimerSetKey {
    var frequentSlot: Int? { nil }
}
