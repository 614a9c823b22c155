import FaultlineCore

/// A count that threads bring down and another thread waits to see reach zero, with a deadline
/// and a way to stop waiting early. `ProxyServer.stop` waits on one while its event loops drain
/// their connections; a second SIGINT/SIGTERM abandons the wait.
///
/// Thread-safe: the count lives in a `ConditionLock`, and every change wakes the waiters.
public final class CountdownLatch: Sendable {
    private struct Count {
        var remaining: Int
        var abandoned = false
    }

    private let count: ConditionLock<Count>

    /// A latch that opens after `count` calls of ``countDown()`` (at once when `count` is 0).
    public init(count: Int) {
        precondition(count >= 0, "CountdownLatch needs a count of at least 0, not \(count)")
        self.count = ConditionLock(Count(remaining: count))
    }

    /// One of the awaited things happened. Calls past zero are ignored.
    public func countDown() {
        count.withLock { $0.remaining = max(0, $0.remaining - 1) }
        count.broadcast()
    }

    /// Wakes every waiter now, whatever the count: they stop waiting and see whether it had
    /// reached zero.
    public func abandon() {
        count.withLock { $0.abandoned = true }
        count.broadcast()
    }

    /// True once the count has reached zero.
    public var isOpen: Bool { count.withLock { $0.remaining == 0 } }

    /// Blocks the calling thread until the count reaches zero, `timeout` has passed or the wait
    /// is abandoned; true when the count reached zero. Never call it from an event loop that
    /// must count it down.
    public func wait(timeout: Duration) -> Bool {
        count.wait(
            until: { $0.remaining == 0 || $0.abandoned }, timeoutSeconds: max(0, timeout.inSeconds),
            then: { $0.remaining == 0 }) ?? false
    }
}
