import FaultlineCore

/// Picks the next step at each decision point. Strategies are seeded and deterministic: the same
/// arrivals give the same choices.
public protocol ExploreStrategy: Sendable {
    /// The choice at decision `decision` (counted from 0) among `pending` (oldest first); `.wait`
    /// only when `canWait`.
    mutating func choose(_ pending: [ExploreStep], canWait: Bool, decision: Int) -> ExploreChoice
}

extension StrategyKind {
    /// The strategy for one schedule. `horizon` is how many decisions a run is expected to take
    /// (PCT spreads its change points over it; the runner learns it from the runs so far).
    public func make(seed: UInt64, horizon: Int) -> any ExploreStrategy {
        switch self {
        case .random: RandomStrategy(seed: seed)
        case .pct(let depth): PCTStrategy(seed: seed, depth: depth, horizon: horizon)
        case .exhaustive, .fcfs: ChoiceList([])
        }
    }
}

/// Uniform among the pending steps and, when allowed, waiting.
public struct RandomStrategy: ExploreStrategy {
    private var generator: SeededGenerator

    public init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    public mutating func choose(_ pending: [ExploreStep], canWait: Bool, decision: Int) -> ExploreChoice {
        let alternatives = pending.count + (canWait ? 1 : 0)
        let pick = Int(generator.next() % UInt64(alternatives))
        return pick == pending.count ? .wait : .step(pick)
    }
}

/// Probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte, ASPLOS 2010),
/// over steps instead of threads: each step gets a random priority when it first pends (waiting
/// has one too), the highest goes, and at depth − 1 change points, drawn among the first
/// `horizon` decisions, the step about to go is lowered below every other. A bug that needs d
/// ordering constraints is then found with probability at least 1/(n·k^(d−1)).
public struct PCTStrategy: ExploreStrategy {
    private var generator: SeededGenerator
    private var priorities: [UInt64: UInt64] = [:]
    private var waitPriority: UInt64
    private let depth: Int
    /// Decision index → the low priority the step about to go is given there (1 … depth − 1).
    private let changePoints: [Int: UInt64]

    public init(seed: UInt64, depth: Int, horizon: Int) {
        var generator = SeededGenerator(seed: seed)
        var points: [Int: UInt64] = [:]
        let span = max(horizon, depth)
        var low = UInt64(depth)
        while points.count < depth - 1 {
            let point = Int(generator.next() % UInt64(span))
            guard points[point] == nil else { continue }
            low -= 1
            points[point] = low
        }
        changePoints = points
        self.depth = depth
        waitPriority = Self.initial(&generator, depth: depth)
        self.generator = generator
    }

    /// Initial priorities sit above every change point's.
    private static func initial(_ generator: inout SeededGenerator, depth: Int) -> UInt64 {
        UInt64(depth) + 1 + generator.next() % (1 << 40)
    }

    public mutating func choose(_ pending: [ExploreStep], canWait: Bool, decision: Int) -> ExploreChoice {
        for step in pending where priorities[step.id] == nil {
            priorities[step.id] = Self.initial(&generator, depth: depth)
        }
        func best() -> ExploreChoice {
            var choice: ExploreChoice? = canWait ? .wait : nil
            var top = canWait ? waitPriority : 0
            for (index, step) in pending.enumerated() {
                let priority = priorities[step.id, default: 0]
                if choice == nil || priority > top {
                    top = priority
                    choice = .step(index)
                }
            }
            guard let choice else { preconditionFailure("PCTStrategy: a decision with nothing pending") }
            return choice
        }
        var choice = best()
        if let low = changePoints[decision] {
            switch choice {
            case .step(let index): priorities[pending[index].id] = low
            case .wait: waitPriority = low
            }
            choice = best()
        }
        return choice
    }
}

/// Plays given choices, then first come, first served: replaying a schedule, and exhaustive
/// search's prefixes.
public struct ChoiceList: ExploreStrategy {
    private let choices: [ExploreChoice]

    public init(_ choices: [ExploreChoice]) { self.choices = choices }

    public mutating func choose(_ pending: [ExploreStep], canWait: Bool, decision: Int) -> ExploreChoice {
        decision < choices.count ? choices[decision] : .step(0)
    }
}
