import FaultlineCore

/// Which new upstream connects of one event loop may start: at most `perOrigin` in flight to one
/// origin and `perLoop` in all (`UpstreamConnectLimits`); the others wait, first come first
/// served, in a queue of at most `queue`, and one past that is refused. A connect that waited
/// longer than the deadline the driver gives (`expire`) leaves the queue too.
///
/// Sans-I/O: fed requests, cancellations, ends and the time, it returns what to do with which
/// ticket; `UpstreamConnector` carries that out. A cancelled connect still in flight keeps its
/// place until it ends (`finished`): its socket exists until then.
///
/// Every connect that waits is blocked by a cap (the places are handed out in `admitWaiting`
/// whenever one frees), so a new one may start at once whenever the caps let it, whatever waits
/// for other origins.
struct UpstreamConnectGate<Origin: Hashable> {
    typealias Ticket = UInt64

    enum Action: Equatable {
        /// Open the connection now.
        case start(Ticket)
        /// The queue is full: the flow gets no connection.
        case refuse(Ticket)
        /// It waited past the deadline: the flow gets no connection.
        case expire(Ticket)
    }

    private struct Waiting {
        let ticket: Ticket
        let origin: Origin
        let since: MonotonicInstant
    }

    let limits: UpstreamConnectLimits
    private var inFlight: [Ticket: Origin] = [:]
    private var inFlightPerOrigin: [Origin: Int] = [:]
    /// In arrival order; never longer than `limits.queue`, so removing from the middle is cheap.
    private var waiting: [Waiting] = []

    init(limits: UpstreamConnectLimits) {
        self.limits = limits
    }

    /// Connects in flight (cancelled ones included, until they end).
    var inFlightCount: Int { inFlight.count }
    var waitingCount: Int { waiting.count }
    func inFlightCount(to origin: Origin) -> Int { inFlightPerOrigin[origin] ?? 0 }
    /// When the connect that has waited longest began waiting (the driver's deadline timer).
    var oldestWaitingSince: MonotonicInstant? { waiting.first?.since }

    /// A flow needs a new connection to `origin`: `start` now, nothing (it waits), or `refuse`.
    mutating func request(_ ticket: Ticket, to origin: Origin, at now: MonotonicInstant) -> [Action] {
        if fits(origin) {
            admit(ticket, origin)
            return [.start(ticket)]
        }
        guard waiting.count < limits.queue else { return [.refuse(ticket)] }
        waiting.append(Waiting(ticket: ticket, origin: origin, since: now))
        return []
    }

    /// The flow no longer wants the connection. True when it was still waiting (it is gone, and
    /// never starts); false when it is in flight (its place is kept until `finished`) or unknown.
    mutating func cancel(_ ticket: Ticket) -> Bool {
        guard let index = waiting.firstIndex(where: { $0.ticket == ticket }) else { return false }
        waiting.remove(at: index)
        return true
    }

    /// A connect in flight ended (connected, failed or timed out): its place goes to whoever
    /// waits and fits.
    mutating func finished(_ ticket: Ticket) -> [Action] {
        guard let origin = inFlight.removeValue(forKey: ticket) else { return [] }
        let count = inFlightPerOrigin[origin, default: 1] - 1
        inFlightPerOrigin[origin] = count == 0 ? nil : count
        return admitWaiting()
    }

    /// The connects that have waited `wait` or longer at `now` leave the queue.
    mutating func expire(at now: MonotonicInstant, after wait: Duration) -> [Action] {
        var actions: [Action] = []
        while let first = waiting.first, first.since.duration(to: now) >= wait {
            waiting.removeFirst()
            actions.append(.expire(first.ticket))
        }
        return actions
    }

    private func fits(_ origin: Origin) -> Bool {
        inFlight.count < limits.perLoop && inFlightCount(to: origin) < limits.perOrigin
    }

    private mutating func admit(_ ticket: Ticket, _ origin: Origin) {
        inFlight[ticket] = origin
        inFlightPerOrigin[origin, default: 0] += 1
    }

    /// In arrival order, every waiting connect the caps now let start.
    private mutating func admitWaiting() -> [Action] {
        var actions: [Action] = []
        var index = 0
        while index < waiting.count, inFlight.count < limits.perLoop {
            let next = waiting[index]
            if inFlightCount(to: next.origin) < limits.perOrigin {
                waiting.remove(at: index)
                admit(next.ticket, next.origin)
                actions.append(.start(next.ticket))
            } else {
                index += 1
            }
        }
        return actions
    }
}
