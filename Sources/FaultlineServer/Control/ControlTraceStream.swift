import FaultlinePosix
import FaultlineTrace
import Synchronization

/// One live trace subscription (`GET /v1/trace/stream`, the web UI's event stream): collects the
/// lines the recorder writes, on whatever thread hands them over, and passes them in batches to
/// the subscriber's loop.
///
/// Theory of operation: the observer only copies the line into `pending` and, when no hand-off
/// is queued yet, queues one with `EventLoop.execute` (run after `pace`, for the web UI). The
/// hand-off takes everything pending at once, so a burst of lines costs one wakeup. The buffer
/// is bounded: once `limit` bytes wait, later lines are dropped and counted until the next
/// hand-off, which reports the count after the lines it carries, so the subscriber knows where
/// the gap is and how big it is. What to do about a gap is the subscriber's choice (the trace
/// stream cuts the connection, the UI says so and goes on). `stop()` unsubscribes; the recorder guarantees no observer call after `removeObserver`
/// returns, and a hand-off already queued finds its deliverer gone or stopped and does nothing.
final class ControlTraceStream: Sendable {
    /// What the loop gets: whole lines, then how many lines were dropped after them.
    typealias Deliver = (_ lines: [UInt8], _ dropped: Int) -> Void

    private struct Pending {
        var bytes: [UInt8] = []
        var handOffQueued = false
        var dropped = 0
    }

    private let trace: TraceRecorder
    private let pending = Mutex(Pending())
    private let observer = Mutex<TraceObserverToken?>(nil)

    init(trace: TraceRecorder) {
        self.trace = trace
    }

    /// Subscribes; `deliver` runs on `deliver.loop` with batches of lines, until `stop()`. Returns
    /// the last `seq` before the subscription (the first line delivered comes after it).
    ///
    /// `pace` above zero makes each hand-off wait that long on the loop before it takes what is
    /// pending, so a busy proxy hands a subscriber a few large batches a second (one wakeup and
    /// one write each) instead of one per line or two; the web UI uses it, since a person does
    /// not see 25 ms.
    @discardableResult
    func start(limit: Int, pace: Duration = .zero, deliver: LoopBound<Deliver>) -> UInt64 {
        let token = trace.addObserver { [self] line in
            let queueHandOff = pending.withLock { pending -> Bool in
                if pending.dropped > 0 || pending.bytes.count + line.count > limit {
                    pending.dropped += 1
                } else {
                    pending.bytes.append(contentsOf: line)
                }
                guard !pending.handOffQueued else { return false }
                pending.handOffQueued = true
                return true
            }
            guard queueHandOff else { return }
            deliver.loop.execute { [self] in
                guard pace > .zero else { return handOff(deliver) }
                _ = deliver.loop.scheduleTimer(after: pace) { [self] in handOff(deliver) }
            }
        }
        observer.withLock { $0 = token }
        return token.subscribedAfter
    }

    /// Takes everything pending and passes it on (on the deliverer's loop).
    private func handOff(_ deliver: LoopBound<Deliver>) {
        let (bytes, dropped) = pending.withLock { pending -> ([UInt8], Int) in
            pending.handOffQueued = false
            defer {
                pending.bytes = []
                pending.dropped = 0
            }
            return (pending.bytes, pending.dropped)
        }
        deliver.value(bytes, dropped)
    }

    /// Unsubscribes (idempotent). After it returns no new line is collected.
    func stop() {
        guard
            let token = observer.withLock({ current -> TraceObserverToken? in
                defer { current = nil }
                return current
            })
        else { return }
        trace.removeObserver(token)
    }
}
