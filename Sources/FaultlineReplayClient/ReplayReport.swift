import FaultlineCapture
import FaultlineHTTP1

/// A finished replay: every request's result, the counts, timing, and the verdict against
/// `--allow`.
public struct ReplayReport: Sendable {
    /// The capture's path, as given.
    public var capture: String
    /// The target URL.
    public var target: String
    public var speed: Double
    /// In step order.
    public var results: [ReplayResult]
    /// Recorded connections replayed (the plan's lanes).
    public var connectionCount: Int
    public var recordedSpan: Duration
    public var replaySpan: Duration
    /// Pseudonyms sent as recorded for want of a live value, sorted.
    public var unresolved: [String]
    public var allowedDifferences: Int

    public init(
        capture: String, target: String, speed: Double, results: [ReplayResult], connectionCount: Int,
        recordedSpan: Duration, replaySpan: Duration, unresolved: [String], allowedDifferences: Int
    ) {
        self.capture = capture
        self.target = target
        self.speed = speed
        self.results = results
        self.connectionCount = connectionCount
        self.recordedSpan = recordedSpan
        self.replaySpan = replaySpan
        self.unresolved = unresolved
        self.allowedDifferences = allowedDifferences
    }

    /// The report of a finished session; a step without a result (which a driver never leaves)
    /// counts as failed.
    public init(session: ReplaySession, capture: String, replaySpan: Duration) {
        let results = session.plan.steps.map { step in
            session.results[step.number - 1]
                ?? ReplayResult(
                    number: step.number, method: step.request.method, url: step.request.url.description,
                    recordedStatus: step.exchange.response?.status, status: nil, outcome: .failed,
                    error: "never finished")
        }
        self.init(
            capture: capture, target: session.options.target.description, speed: session.options.speed,
            results: results,
            connectionCount: session.plan.lanes.count, recordedSpan: session.plan.recordedSpan, replaySpan: replaySpan,
            unresolved: session.unresolved.sorted(), allowedDifferences: session.options.allowedDifferences)
    }

    /// Results with each outcome.
    public func count(_ outcome: ReplayResult.Outcome) -> Int { results.filter { $0.outcome == outcome }.count }

    /// Results that count against `--allow`.
    public var differenceCount: Int { results.filter(\.isDifference).count }

    /// True when the differences are within `--allow`.
    public var passed: Bool { differenceCount <= allowedDifferences }
}
