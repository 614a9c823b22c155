public import FaultlineCore

/// The exploration scheduler of one run: which held step goes next, and when.
///
/// Theory of operation. The proxy holds every selected flow's request before it goes upstream
/// and its response head before it reaches the client; each such hold is a pending step
/// (`stepArrived`). The scheduler lets one go only at a *decision point*: something is pending
/// and the system has been quiet (no trace activity, `activity`) for the settle window. There the
/// strategy picks a pending step (released at once) or, when allowed, waiting: everything stays
/// pending until the next step arrives or `maxWait` passes, so that a later request of the client
/// (a logout on a timer) can overtake what is pending now. After a wait that saw no arrival,
/// waiting is not offered again until something arrives, and after `fruitlessWaits` of them not
/// at all in this run: a client that sends nothing on its own should not cost a wait at every
/// decision. Every decision is recorded; a choice
/// the run cannot take (a replayed schedule asking for a step that is not there) falls back to
/// first come, first served and marks the run diverged, as does a step that left by itself (its
/// hold's step timeout).
///
/// Pending steps are ordered by when they arrived counted in decisions, then by label: steps that
/// arrived between the same two decisions were all there when the scheduler looked, so which of
/// them the client sent first is thread timing, not the client's logic; ordering them by what
/// they are makes a schedule's step indices name the same steps in every run. Choice 0 is then
/// "first come, first served" at the scheduler's grain.
///
/// Time is given, never read: the driver passes the monotonic clock with each input and arms one
/// timer for the instant the last `.armTimer` action names.
public struct ExploreScheduler: Sendable {
    /// The windows that pace the scheduler.
    public struct Settings: Sendable, Equatable {
        /// Quiet needed before a decision (`--settle`, default 25 ms).
        public var settle: Duration
        /// The longest wait for a new arrival (`--max-wait`, default 1 s).
        public var maxWait: Duration
        /// Waits that may end with no arrival in one run before waiting is no longer offered.
        public var fruitlessWaits: Int

        public init(settle: Duration = .milliseconds(25), maxWait: Duration = .seconds(1), fruitlessWaits: Int = 2) {
            self.settle = settle
            self.maxWait = maxWait
            self.fruitlessWaits = fruitlessWaits
        }
    }

    /// What the driver carries out.
    public enum Action: Sendable, Equatable {
        /// End this step's hold: the flow moves on.
        case release(ExploreStep)
        /// Fire `timerFired` at this instant (replacing any earlier timer).
        case armTimer(MonotonicInstant)
        /// Trace this decision (`explore.step`).
        case decided(ExploreDecision)
    }

    private enum Mode: Sendable, Equatable {
        case running
        /// A wait was chosen; it ends at the next arrival or at this instant.
        case waiting(until: MonotonicInstant)
    }

    public let settings: Settings
    private var strategy: any ExploreStrategy
    /// Pending steps with the number of decisions made when each arrived, in schedule order.
    private var pending: [(step: ExploreStep, epoch: Int)] = []
    private var mode = Mode.running
    private var waitOffered = true
    private var fruitless = 0
    private var lastActivity: MonotonicInstant
    /// Every decision so far.
    public private(set) var decisions: [ExploreDecision] = []
    /// The choices actually taken: replaying them reproduces the run.
    public private(set) var choices: [ExploreChoice] = []
    /// Steps let go, in order (`request GET /v1/messages`): the run's interleaving.
    public private(set) var order: [String] = []
    /// Why the run did not go as scheduled, if it did not.
    public private(set) var divergences: [String] = []

    public init(strategy: any ExploreStrategy, settings: Settings = Settings(), now: MonotonicInstant) {
        self.strategy = strategy
        self.settings = settings
        lastActivity = now
    }

    /// Steps held now, in schedule order (oldest first).
    public var pendingSteps: [ExploreStep] { pending.map(\.step) }

    /// A held step appeared. Ends a wait.
    public mutating func stepArrived(_ step: ExploreStep, now: MonotonicInstant) -> [Action] {
        let entry = (step: step, epoch: decisions.count)
        let position = pending.firstIndex { Self.precedes(entry, $0) } ?? pending.count
        pending.insert(entry, at: position)
        waitOffered = fruitless < settings.fruitlessWaits
        if case .waiting = mode { mode = .running }
        return activity(now: now)
    }

    /// A step left without the scheduler (its flow ended, or its hold's step timeout let it go):
    /// `reason` names the second case, which makes the run diverged.
    public mutating func stepLeft(id: UInt64, reason: String?, now: MonotonicInstant) -> [Action] {
        if let index = pending.firstIndex(where: { $0.step.id == id }) {
            let step = pending.remove(at: index).step
            if let reason {
                divergences.append("\(step.label) (flow \(step.flow)) \(reason)")
                order.append(step.label)
            }
        }
        return activity(now: now)
    }

    /// Something happened (a trace event that is not the scheduler's own): the quiet starts again.
    public mutating func activity(now: MonotonicInstant) -> [Action] {
        lastActivity = now
        switch mode {
        case .running: return pending.isEmpty ? [] : [.armTimer(now.advanced(by: settings.settle))]
        case .waiting: return []
        }
    }

    /// The timer armed last fired.
    public mutating func timerFired(now: MonotonicInstant) -> [Action] {
        if case .waiting(let until) = mode {
            guard now >= until else { return [.armTimer(until)] }
            mode = .running
            waitOffered = false
            fruitless += 1
        }
        guard !pending.isEmpty else { return [] }
        let quietFrom = lastActivity.advanced(by: settings.settle)
        guard now >= quietFrom else { return [.armTimer(quietFrom)] }
        return decide(now: now)
    }

    /// Schedule order: earlier epoch first, then by label, then by flow.
    private static func precedes(_ a: (step: ExploreStep, epoch: Int), _ b: (step: ExploreStep, epoch: Int)) -> Bool {
        (a.epoch, a.step.label, a.step.flow) < (b.epoch, b.step.label, b.step.flow)
    }

    private mutating func decide(now: MonotonicInstant) -> [Action] {
        let index = decisions.count
        let steps = pendingSteps
        var choice = strategy.choose(steps, canWait: waitOffered, decision: index)
        switch choice {
        case .step(let position) where position >= pending.count:
            divergences.append(
                "decision \(index): the schedule chose step \(position) of \(pending.count) pending; went first come, first served"
            )
            choice = .step(0)
        case .wait where !waitOffered:
            divergences.append(
                "decision \(index): the schedule chose to wait, but the last wait saw no arrival; went first come, first served"
            )
            choice = .step(0)
        default:
            break
        }
        let alternatives = pending.count + (waitOffered ? 1 : 0)
        choices.append(choice)
        switch choice {
        case .step(let position):
            let step = pending.remove(at: position).step
            order.append(step.label)
            let decision = ExploreDecision(
                index: index, pending: steps, alternatives: alternatives, choice: choice, chosen: step)
            decisions.append(decision)
            lastActivity = now
            var actions: [Action] = [.decided(decision), .release(step)]
            if !pending.isEmpty { actions.append(.armTimer(now.advanced(by: settings.settle))) }
            return actions
        case .wait:
            let decision = ExploreDecision(
                index: index, pending: steps, alternatives: alternatives, choice: choice, chosen: nil)
            decisions.append(decision)
            let until = now.advanced(by: settings.maxWait)
            mode = .waiting(until: until)
            return [.decided(decision), .armTimer(until)]
        }
    }
}
