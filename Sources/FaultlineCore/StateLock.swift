#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by one pthread mutex: the rule engine's and lineage tracker's state, the
/// certificate cache, the reference backend's state. Shared by the package's modules, not public.
///
/// Not `Synchronization.Mutex`: on Linux that is built on raw futexes ThreadSanitizer cannot see,
/// so every access it protects reports as a false race under `--sanitize=thread` (the reason
/// FaultlinePosix's `ConditionLock` exists too). An uncontended pthread mutex costs about the same.
///
/// `@unchecked Sendable`: `value` is only read or written inside `withLock`, which holds `mutex`
/// for the whole call, so every access is serialized. The mutex is allocated once, never moves,
/// and is destroyed in `deinit`, when no other reference exists. `Value` may hold non-Sendable
/// parts (the rule engine's compiled `Regex`es); they cannot leave the lock through the result,
/// which must be `Sendable`, and callers do not copy them out through captures.
package final class StateLock<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held and returns its result. Keep `body` short: other threads
    /// wait for it.
    package func withLock<Result: Sendable, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
