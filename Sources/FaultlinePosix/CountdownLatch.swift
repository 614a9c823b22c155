import FaultlineCore

/// A count that threads bring down and another thread waits to see reach zero, with a deadline.
/// `ProxyServer.stop` waits on one while its event loops drain their connections.
///
/// Thread-safe: the count lives in a `ConditionLock`, and every change wakes the waiters.
public final class CountdownLatch: Sendable {
    private let remaining: ConditionLock<Int>

    /// A latch that opens after `count` calls of ``countDown()`` (at once when `count` is 0).
    public init(count: Int) {
        precondition(count >= 0, "CountdownLatch needs a count of at least 0, not \(count)")
        remaining = ConditionLock(count)
    }

    /// One of the awaited things happened. Calls past zero are ignored.
    public func countDown() {
        remaining.withLock { count in count = max(0, count - 1) }
        remaining.broadcast()
    }

    /// True once the count has reached zero.
    public var isOpen: Bool { remaining.withLock { $0 == 0 } }

    /// Blocks the calling thread until the count reaches zero or `timeout` has passed; true when
    /// it reached zero. Never call it from an event loop that must count it down.
    public func wait(timeout: Duration) -> Bool {
        remaining.wait(until: { $0 == 0 }, timeoutSeconds: max(0, timeout.inSeconds), then: { _ in true }) ?? false
    }
}
