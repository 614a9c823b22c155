import FaultlinePosix

/// The timers one owner has armed on its loop, by key: arming a key again replaces its timer, and
/// `cancelAll` disarms everything when the owner goes away. A fired timer calls `onFire` with its
/// key: the owner sets it once, so arming costs one closure, not two. Loop-confined.
final class TimerSet<Key: Hashable> {
    private let loop: EventLoop
    private var handles: [Key: TimerHandle] = [:]
    /// What a fired timer calls (set by the owner once it is initialised).
    var onFire: (Key) -> Void = { _ in }

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// Arms `key` to fire after `delay` (replacing a timer already armed for it).
    func arm(_ key: Key, after delay: Duration) {
        cancel(key)
        handles[key] = loop.scheduleTimer(after: delay) { [weak self] in
            guard let self else { return }
            self.handles[key] = nil
            self.onFire(key)
        }
    }

    func cancel(_ key: Key) {
        if let handle = handles.removeValue(forKey: key) { loop.cancelTimer(handle) }
    }

    func cancelAll() {
        for handle in handles.values { loop.cancelTimer(handle) }
        handles = [:]
    }
}
