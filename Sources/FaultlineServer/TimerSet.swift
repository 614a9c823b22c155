import FaultlinePosix

/// The timers one owner has armed on its loop, by key: arming a key again replaces its timer, and
/// `cancelAll` disarms everything when the owner goes away. Loop-confined.
final class TimerSet<Key: Hashable> {
    private let loop: EventLoop
    private var handles: [Key: TimerHandle] = [:]

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// Arms `key` to call `fire` after `delay` (replacing a timer already armed for it).
    func arm(_ key: Key, after delay: Duration, _ fire: @escaping () -> Void) {
        cancel(key)
        handles[key] = loop.scheduleTimer(after: delay) { [weak self] in
            self?.handles[key] = nil
            fire()
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
