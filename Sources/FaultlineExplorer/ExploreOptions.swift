import FaultlineCore
public import FaultlineExplore

/// What an exploration runs: the strategy and its seed, how many schedules, which of them
/// (`--shard`), how failures are shrunk and where failing runs are kept.
public struct ExploreOptions: Sendable {
    public var strategy: StrategyKind
    public var seed: UInt64
    /// Schedules to run (all shards together); exhaustive search stops earlier when it is done.
    public var schedules: Int
    public var shard: Shard?
    /// Replays this schedule's choices in every run instead of a strategy (`--schedule`).
    public var replay: Schedule?
    /// Exhaustive search explores this many decisions; later ones go in arrival order.
    public var maxSteps: Int
    /// Runs allowed to shrink each clause's first failing schedule.
    public var shrinkRuns: Int
    /// A client that fails makes the exploration fail.
    public var failOnClientError: Bool
    /// End after the first schedule that breaks the contract (then shrink it): for a search
    /// that only asks whether, and how soon, a flaw is found.
    public var stopAtFirstFailure = false
    /// Where failing runs' traces and HTML reports are written; nil keeps none.
    public var keepDirectory: String?
    /// For the report: the scheduler's windows.
    public var settings: ExploreScheduler.Settings
    /// The client command, for the reproduce line.
    public var command: [String]

    public init(
        strategy: StrategyKind = .pct(depth: 3), seed: UInt64 = 1, schedules: Int = 100, shard: Shard? = nil,
        replay: Schedule? = nil, maxSteps: Int = 64, shrinkRuns: Int = 40, failOnClientError: Bool = false,
        keepDirectory: String? = nil, settings: ExploreScheduler.Settings = ExploreScheduler.Settings(),
        command: [String] = []
    ) {
        self.strategy = strategy
        self.seed = seed
        self.schedules = schedules
        self.shard = shard
        self.replay = replay
        self.maxSteps = maxSteps
        self.shrinkRuns = shrinkRuns
        self.failOnClientError = failOnClientError
        self.keepDirectory = keepDirectory
        self.settings = settings
        self.command = command
    }

    /// The seed of schedule `index`: derived from the exploration's seed and the number alone, so
    /// a shard runs exactly the schedules the whole exploration would.
    public func seed(of index: Int) -> UInt64 {
        var state = seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
        return SeededGenerator.splitMix(&state)
    }
}
