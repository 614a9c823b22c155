public import FaultlineContract

/// An exploration's outcome: every schedule run, what each broke, and for each clause the first
/// schedule that broke it and the smallest one found. `ExploreReportFormatter` prints it as text,
/// JSON (which decodes back into an equal report), JUnit and HTML; `merged(_:)` joins shards.
public struct ExploreReport: Sendable, Equatable, Codable {
    /// One schedule's run.
    public struct Run: Sendable, Equatable, Codable {
        /// The schedule's number (0-based); -1 for the baseline in arrival order.
        public var index: Int
        /// The choices actually taken: `faultline explore --schedule` replays it.
        public var schedule: String
        /// Identifies the order of steps (equal for runs that let the same steps go in the same order).
        public var interleaving: String
        public var decisions: Int
        /// The clauses the run broke.
        public var violated: [ClauseID]
        /// Why the run did not go as scheduled, if it did not.
        public var diverged: [String]
        public var client: ClientOutcome
        /// The kept trace and its HTML report (for failing runs), as written.
        public var trace: String?
        public var html: String?

        public init(
            index: Int, schedule: String, interleaving: String, decisions: Int, violated: [ClauseID],
            diverged: [String], client: ClientOutcome, trace: String? = nil, html: String? = nil
        ) {
            self.index = index
            self.schedule = schedule
            self.interleaving = interleaving
            self.decisions = decisions
            self.violated = violated
            self.diverged = diverged
            self.client = client
            self.trace = trace
            self.html = html
        }
    }

    /// A clause some schedule broke.
    public struct Finding: Sendable, Equatable, Codable {
        public var clause: ClauseID
        /// How many schedules broke it.
        public var schedules: Int
        /// The first schedule (lowest number) that broke it.
        public var first: Run
        /// The schedule with the fewest deviations from arrival order found to break it still,
        /// its number of deviations, and the runs shrinking took; nil before shrinking.
        public var shrunk: Run?
        public var shrunkDeviations: Int?
        public var shrinkRuns: Int?

        public init(
            clause: ClauseID, schedules: Int, first: Run, shrunk: Run? = nil, shrunkDeviations: Int? = nil,
            shrinkRuns: Int? = nil
        ) {
            self.clause = clause
            self.schedules = schedules
            self.first = first
            self.shrunk = shrunk
            self.shrunkDeviations = shrunkDeviations
            self.shrinkRuns = shrinkRuns
        }
    }

    /// The `format` of the JSON report.
    public static let formatName = "faultline-explore-report/1"

    public var strategy: String
    public var seed: UInt64
    /// Schedules asked for (all shards together).
    public var schedules: Int
    public var shard: Shard?
    public var settleMilliseconds: Int
    public var maxWaitMilliseconds: Int
    public var contract: ContractSummary
    /// The client command, for the reproduce line (empty for a client run in-process).
    public var command: [String]
    /// The options that shape each run, as given on the command line, for the reproduce line.
    public var arguments: [String]
    public var baseline: Run?
    /// The runs of this report's schedules, by number.
    public var runs: [Run]
    public var findings: [Finding]
    /// Exhaustive search: decisions the bound cut, alternatives skipped as independent swaps,
    /// and whether every order within the bound was run.
    public var cut: Int?
    public var pruned: Int?
    public var complete: Bool?
    /// Stopped early (Ctrl-C): the runs so far.
    public var interrupted: Bool
    /// Why the exploration could not run, if it could not.
    public var problem: String?
    /// Time spent on the schedules (the baseline included), and then on shrinking.
    public var elapsedSeconds: Double
    public var shrinkSeconds: Double?
    /// The verdict counts client failures too (`--fail-on-client-error`).
    public var failOnClientError: Bool

    public init(
        strategy: String, seed: UInt64, schedules: Int, shard: Shard?, settleMilliseconds: Int,
        maxWaitMilliseconds: Int, contract: ContractSummary, command: [String], arguments: [String] = [],
        failOnClientError: Bool
    ) {
        self.strategy = strategy
        self.seed = seed
        self.schedules = schedules
        self.shard = shard
        self.settleMilliseconds = settleMilliseconds
        self.maxWaitMilliseconds = maxWaitMilliseconds
        self.contract = contract
        self.command = command
        self.arguments = arguments
        self.baseline = nil
        self.runs = []
        self.findings = []
        self.interrupted = false
        self.problem = nil
        self.elapsedSeconds = 0
        self.failOnClientError = failOnClientError
    }

    /// Distinct orders of steps among the runs.
    public var interleavings: Int { Set(runs.map(\.interleaving)).count }

    /// Runs whose client failed (exited non-zero, timed out, threw).
    public var clientFailures: [Run] { runs.filter(\.client.failed) }

    /// Runs that did not go as scheduled.
    public var divergedRuns: [Run] { runs.filter { !$0.diverged.isEmpty } }

    /// No schedule broke the contract (nor, with `--fail-on-client-error`, failed its client), and
    /// the exploration ran.
    public var passed: Bool {
        problem == nil && findings.isEmpty && !(failOnClientError && !clientFailures.isEmpty)
    }

    /// `faultline check`'s convention: 0 passed, 1 broken, 2 could not run.
    public var exitStatus: Int32 { problem != nil ? 2 : passed ? 0 : 1 }
}
