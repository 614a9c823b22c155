public import FaultlineExplore

/// How a run's client ended.
public struct ClientOutcome: Sendable, Equatable, Codable {
    /// The command's exit status; nil for a client run in-process.
    public var exitStatus: Int32?
    /// Killed at its timeout.
    public var timedOut: Bool
    /// What went wrong, in a phrase: `exited 3`, `killed after 60 s`, a thrown error.
    public var problem: String?

    public init(exitStatus: Int32? = nil, timedOut: Bool = false, problem: String? = nil) {
        self.exitStatus = exitStatus
        self.timedOut = timedOut
        self.problem = problem
    }

    /// Whether the client reported a failure.
    public var failed: Bool { timedOut || problem != nil }

    /// A client that exited with `status` (0 is success).
    public static func exited(_ status: Int32) -> ClientOutcome {
        ClientOutcome(exitStatus: status, problem: status == 0 ? nil : "exited \(status)")
    }
}

/// What one run gave the explorer: the scheduler's record, the proxy's trace and the client's end.
public struct ExploreRunOutput: Sendable {
    public var record: ExploreRunRecord
    /// The trace as JSON Lines (header first).
    public var traceText: String
    public var client: ClientOutcome

    public init(record: ExploreRunRecord, traceText: String, client: ClientOutcome) {
        self.record = record
        self.traceText = traceText
        self.client = client
    }
}
