import FaultlinePosix
import FaultlineTrace
import Synchronization

/// One `GET /v1/trace/stream` subscription: collects the lines the recorder writes, on whatever
/// thread writes them, and hands them in batches to the subscriber's loop.
///
/// Theory of operation: the recorder calls the observer under its own lock, so the observer only
/// copies the line into `pending` and, when no hand-off is queued yet, queues one with
/// `EventLoop.execute`. The hand-off takes everything pending at once, so a burst of lines costs one
/// wakeup. If the loop falls `limit` bytes behind, later lines are dropped and the delivery says
/// so (`overflowed`); the connection then cuts the stream rather than let memory grow. `stop()`
/// unsubscribes; the recorder guarantees no observer call after `removeObserver` returns, and a
/// hand-off already queued finds its deliverer gone or stopped and does nothing.
final class ControlTraceStream: Sendable {
    /// What the loop gets: the bytes (whole lines) and whether lines were dropped after them.
    typealias Deliver = ([UInt8], _ overflowed: Bool) -> Void

    private struct Pending {
        var bytes: [UInt8] = []
        var handOffQueued = false
        var overflowed = false
    }

    private let trace: TraceRecorder
    private let pending = Mutex(Pending())
    private let observer = Mutex<UInt64?>(nil)

    init(trace: TraceRecorder) {
        self.trace = trace
    }

    /// Subscribes; `deliver` runs on `deliver.loop` with batches of lines, until `stop()`.
    func start(limit: Int, deliver: LoopBound<Deliver>) {
        let token = trace.addObserver { [self] line in
            let queueHandOff = pending.withLock { pending -> Bool in
                guard !pending.overflowed else { return false }
                if pending.bytes.count + line.count > limit {
                    pending.overflowed = true
                } else {
                    pending.bytes.append(contentsOf: line)
                }
                guard !pending.handOffQueued else { return false }
                pending.handOffQueued = true
                return true
            }
            guard queueHandOff else { return }
            deliver.loop.execute { [self] in
                let (bytes, overflowed) = pending.withLock { pending -> ([UInt8], Bool) in
                    pending.handOffQueued = false
                    defer { pending.bytes = [] }
                    return (pending.bytes, pending.overflowed)
                }
                deliver.value(bytes, overflowed)
            }
        }
        observer.withLock { $0 = token }
    }

    /// Unsubscribes (idempotent). After it returns no new line is collected.
    func stop() {
        guard let token = observer.withLock({ current -> UInt64? in
            defer { current = nil }
            return current
        }) else { return }
        trace.removeObserver(token)
    }
}
