import FaultlineCore
import FaultlineExplore
import FaultlineFlow
import FaultlinePosix
import FaultlineRules
public import FaultlineTrace
import Synchronization

extension TraceEventKind {
    /// A decision of the exploration scheduler: the step let go (or a wait), and what was pending.
    public static let exploreStep: Self = "explore.step"
}

/// Runs an `ExploreScheduler` for a server in exploration mode: the explore holds that start and
/// end are its steps, every trace line but its own is activity, and its one timer lives on one
/// event loop. Releases go through the hold registry like any other (`ended_by: explore`).
///
/// Inputs arrive on any thread (hold changes, trace observers) and hop onto `loop`, where the
/// scheduler and its timer are touched; the record of the run is published under a lock after
/// each input, so it can be read from anywhere, also after the server stopped.
final class ExploreDriver: Sendable {
    /// The loop-confined part.
    private final class State {
        var scheduler: ExploreScheduler
        var timer: TimerHandle?
        init(_ scheduler: ExploreScheduler) { self.scheduler = scheduler }
    }

    private let state: LoopBound<State>
    private let holds: HoldRegistry
    private let trace: TraceRecorder
    private let stepTimeout: Duration
    private let published = Mutex(ExploreRunRecord())
    private let observer = Mutex<TraceObserverToken?>(nil)

    init(configuration: ExploreConfiguration, holds: HoldRegistry, trace: TraceRecorder, loop: EventLoop) {
        let scheduler = ExploreScheduler(
            strategy: configuration.strategy, settings: configuration.settings, now: .now())
        state = LoopBound(handingOff: State(scheduler), to: loop)
        self.holds = holds
        self.trace = trace
        stepTimeout = configuration.stepTimeout
    }

    /// Starts listening; call once, before the first flow.
    func start() {
        holds.watch { [self] change in
            let now = MonotonicInstant.now()
            switch change {
            case .started(let info):
                guard let step = Self.step(info) else { return }
                input { $0.stepArrived(step, now: now) }
            case .ended(let info):
                guard Self.step(info) != nil else { return }
                // The flow's own timer ends the hold at its deadline; it was armed a moment before
                // the registry noted `heldAt`, so a little slack tells the deadline from an end
                // that came earlier (the client leaving).
                let slack = min(stepTimeout / 20, .milliseconds(100))
                let timedOut = info.heldAt.advanced(by: stepTimeout - slack) <= now
                let reason = timedOut ? "went by its step timeout (\(stepTimeout))" : nil
                input { $0.stepLeft(id: info.id, reason: reason, now: now) }
            }
        }
        let token = trace.addObserver { [self] line in
            guard !Self.isOwn(line) else { return }
            let now = MonotonicInstant.now()
            input { $0.activity(now: now) }
        }
        observer.withLock { $0 = token }
    }

    /// Stops listening (the server is stopping).
    func stop() {
        if let token = observer.withLock({ $0 }) { trace.removeObserver(token) }
    }

    /// The run so far.
    var record: ExploreRunRecord { published.withLock { $0 } }

    private func input(_ body: @escaping @Sendable (inout ExploreScheduler) -> [ExploreScheduler.Action]) {
        state.loop.execute { [self] in
            let state = self.state.value
            let actions = body(&state.scheduler)
            let record = state.scheduler.record
            published.withLock { $0 = record }
            carryOut(actions, state)
        }
    }

    private func carryOut(_ actions: [ExploreScheduler.Action], _ state: State) {
        for action in actions {
            switch action {
            case .decided(let decision):
                trace.record(.exploreStep, flow: decision.flow.map(FlowID.init), Self.fields(decision))
            case .release(let step):
                holds.end(id: step.id, with: .release(nil), by: .explorer)
            case .armTimer(let instant):
                let loop = self.state.loop
                if let timer = state.timer { loop.cancelTimer(timer) }
                let now = MonotonicInstant.now()
                state.timer = loop.scheduleTimer(after: now.duration(to: Self.wakeInstant(for: instant, now: now))) {
                    [self] in
                    self.state.value.timer = nil
                    let now = MonotonicInstant.now()
                    input { $0.timerFired(now: now) }
                }
            }
        }
    }

    /// The longest sleep that ends on time. Linux lets a sleep in `epoll_wait` end late by 0.1% of
    /// its length, and at least by the thread's timer slack of 50 µs (`select_estimate_accuracy` in
    /// the kernel's fs/select.c): a one-second wait could end a millisecond late, which the
    /// decision after it would pay. A sleep of 50 ms or less ends within the 50 µs.
    static let punctualSleep: Duration = .milliseconds(50)

    /// When to wake for a timer due at `instant`: at it, or, when it is more than `punctualSleep`
    /// away, that much before it. Woken early, the scheduler asks for its instant again
    /// (`timerFired` re-arms the wait's end or the quiet's), and that last sleep is short enough
    /// to end on time.
    static func wakeInstant(for instant: MonotonicInstant, now: MonotonicInstant) -> MonotonicInstant {
        now.duration(to: instant) > punctualSleep ? instant.advanced(by: .zero - punctualSleep) : instant
    }

    private static func fields(_ decision: ExploreDecision) -> [TraceField] {
        var fields: [TraceField] = [
            .int("decision", Int64(decision.index)), .string("choice", decision.choice),
            .int("alternatives", Int64(decision.alternatives)),
            .strings("pending", zip(decision.pendingFlows, decision.pending).map { "flow \($0): \($1)" }),
        ]
        if let step = decision.step { fields.append(.string("step", step)) }
        return fields
    }

    /// The step an explore hold stands for; nil for a hold of the user's rules.
    private static func step(_ info: HoldInfo) -> ExploreStep? {
        let phase: ExploreStep.Phase
        switch info.name {
        case ExploreConfiguration.requestHold: phase = .request
        case ExploreConfiguration.responseHold: phase = .response
        default: return nil
        }
        return ExploreStep(
            id: info.id, flow: info.flow.rawValue, connection: info.connection.rawValue, phase: phase,
            request: requestLine(info.summary))
    }

    /// `GET /v1/messages` from a hold's `GET http://host:port/v1/messages?x=1`.
    static func requestLine(_ summary: String) -> String {
        guard let space = summary.firstIndex(of: " ") else { return summary }
        let method = summary[..<space]
        var target = summary[summary.index(after: space)...]
        if let colon = target.firstIndex(of: ":"), target[colon...].hasPrefix("://") {
            let rest = target[target.index(colon, offsetBy: 3)...]
            target = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        if let query = target.firstIndex(where: { $0 == "?" || $0 == "#" }) { target = target[..<query] }
        return "\(method) \(target)"
    }

    /// Whether a trace line is the driver's own `explore.step` (which is no activity of the client).
    private static func isOwn(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        let marker = Array(#""event":"explore.step""#.utf8)
        let head = line.prefix(160)
        guard head.count >= marker.count else { return false }
        for start in 0...(head.count - marker.count) where head[start] == marker[0] {
            if head[start..<(start + marker.count)].elementsEqual(marker) { return true }
        }
        return false
    }
}
