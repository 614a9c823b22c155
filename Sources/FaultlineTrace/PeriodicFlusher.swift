import FaultlineCore
import Foundation

/// Calls an action every `interval` on a thread of its own until stopped, and at once when woken.
///
/// A plain thread rather than a Dispatch timer: libdispatch's worker-pool monitor traps when the
/// process runs out of file descriptors, which a proxy under a connection flood can do; a thread
/// that only waits on a condition needs no descriptor.
///
/// `@unchecked Sendable`: `stopped` and `woken` are read and written only with `condition` locked.
final class PeriodicFlusher: @unchecked Sendable {
    private let condition = NSCondition()
    private var stopped = false
    private var woken = false

    init(interval: Duration, action: @escaping @Sendable () -> Void) {
        let seconds = interval.inSeconds
        let thread = Thread { [self] in
            condition.lock()
            while !stopped {
                if !woken { _ = condition.wait(until: Date(timeIntervalSinceNow: seconds)) }
                woken = false
                if stopped { break }
                condition.unlock()
                action()
                condition.lock()
            }
            condition.unlock()
        }
        thread.name = "faultline-trace-flusher"
        thread.start()
    }

    /// Runs the action now (on the flusher's thread) rather than at the next interval; a wake
    /// while the action runs makes it run once more right after.
    func wake() {
        condition.lock()
        woken = true
        condition.signal()
        condition.unlock()
    }

    /// Stops the thread. An action already running finishes; no new one starts.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }
}
