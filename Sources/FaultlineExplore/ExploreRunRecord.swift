import FaultlineCore

/// What the scheduler did in one run: enough to replay it, to tell it from other runs, and to
/// say where it did not go as scheduled.
public struct ExploreRunRecord: Sendable, Equatable {
    /// Every decision, in order.
    public var decisions: [ExploreDecision] = []
    /// The choices taken, one per decision.
    public var choices: [ExploreChoice] = []
    /// The steps let go, in order (`response GET /v1/messages`).
    public var order: [String] = []
    /// Why the run did not go as scheduled; empty when it did.
    public var divergences: [String] = []

    public init() {}

    /// The run's schedule under `strategy` and `seed`: replaying it gives the same run.
    public func schedule(_ strategy: StrategyKind, seed: UInt64) -> Schedule {
        Schedule(strategy: strategy, seed: seed, choices: choices)
    }

    /// Identifies the order of steps (16 hex digits): runs with the same hash let the same steps go
    /// in the same order, whatever flow IDs they had.
    public var interleaving: String { FNV1a.hex(order.joined(separator: "\n").utf8) }

    /// Whether the run went as scheduled.
    public var diverged: Bool { !divergences.isEmpty }
}

extension ExploreScheduler {
    /// The run so far.
    public var record: ExploreRunRecord {
        var record = ExploreRunRecord()
        record.decisions = decisions
        record.choices = choices
        record.order = order
        record.divergences = divergences
        return record
    }
}
