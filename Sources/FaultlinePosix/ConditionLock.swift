#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a pthread mutex, with a condition variable to wait for changes.
///
/// The module's one lock: the event loop's task queue, resolver state, and waits where a thread
/// must block until another changes something (resolver workers waiting for lookups,
/// `Listener.stop` waiting for the loops). Not `Synchronization.Mutex`, for two reasons: it has
/// no condition variable, and on Linux it is built on raw futexes that ThreadSanitizer cannot
/// see, so every access it protects shows up as a false data race under `--sanitize=thread`.
/// An uncontended pthread mutex costs about the same.
///
/// `@unchecked Sendable`: `value` is only read or written inside `withLock`/`wait`, which hold
/// `mutex`, so every access is serialized; the mutex and condition are allocated once, never move,
/// and are destroyed only in `deinit`, when no other reference exists. Callers keep non-`Sendable`
/// parts of `Value` inside the lock (the event loop's task closures are `@Sendable`; the loop
/// thread handle is only joined by the one thread that takes it out).
final class ConditionLock<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    // Only touched with `mutex` held: release builds skip Swift's dynamic exclusivity check on it,
    // debug builds (every test) keep it (ARCHITECTURE.md, "Exclusivity").
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        precondition(pthread_cond_init(condition, nil) == 0, "pthread_cond_init failed")
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` with the value under the lock. Call `broadcast()` after a change that waiters
    /// care about.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Wakes every thread blocked in `wait`, so it re-checks its condition.
    func broadcast() {
        pthread_cond_broadcast(condition)
    }

    /// Blocks until `ready(value)` holds, then runs `body` under the same lock hold.
    func wait<Result>(until ready: (Value) -> Bool, then body: (inout Value) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !ready(value) {
            pthread_cond_wait(condition, mutex)
        }
        return body(&value)
    }

    /// Like `wait(until:then:)` but gives up after `seconds`; nil on timeout.
    func wait<Result>(until ready: (Value) -> Bool, timeoutSeconds seconds: Double, then body: (inout Value) -> Result)
        -> Result?
    {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let whole = Int(seconds)
        let nanos = Int((seconds - Double(whole)) * 1_000_000_000) + Int(deadline.tv_nsec)
        deadline.tv_sec += whole + nanos / 1_000_000_000
        deadline.tv_nsec = nanos % 1_000_000_000
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !ready(value) {
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT {
                return ready(value) ? body(&value) : nil
            }
        }
        return body(&value)
    }
}
