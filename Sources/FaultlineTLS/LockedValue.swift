#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a pthread mutex: the certificate cache, shared by every event-loop thread.
///
/// Not `Synchronization.Mutex`: on Linux that is built on raw futexes ThreadSanitizer cannot see,
/// so everything it protects would show up as a false race under `--sanitize=thread` (the same
/// choice as FaultlinePosix's `ConditionLock` and FaultlineRules' `StateLock`).
///
/// `@unchecked Sendable`: `value` is read and written only inside `withLock`, which holds `mutex`,
/// so every access is serialized; the mutex is allocated once, never moves, and is destroyed in
/// `deinit`, when no other reference exists. `Value` must itself be `Sendable`, so nothing taken
/// out of the lock can race.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
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

    /// Runs `body` with the lock held. Keep `body` short: other threads wait for it.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
