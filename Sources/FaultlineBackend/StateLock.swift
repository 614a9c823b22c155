#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a pthread mutex: the backend's one kind of lock.
///
/// Not `Synchronization.Mutex`: on Linux that is built on raw futexes which ThreadSanitizer cannot
/// see, so every access it protects shows up as a false data race under `--sanitize=thread`
/// (FaultlinePosix's `ConditionLock` says the same; it is internal to that module). An
/// uncontended pthread mutex costs about the same.
///
/// `@unchecked Sendable`: `value` is only read or written inside `withLock`, which holds `mutex`,
/// so every access is serialized; the mutex is allocated once, never moves, and is destroyed only
/// in `deinit`, when no other reference exists. `Value` is `Sendable`, so nothing handed in or out
/// can be shared unsafely.
final class StateLock<Value: Sendable>: @unchecked Sendable {
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
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
