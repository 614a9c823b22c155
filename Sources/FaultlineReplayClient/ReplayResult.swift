/// What became of one replayed request.
public struct ReplayResult: Sendable, Equatable {
    public enum Outcome: String, Sendable, Codable {
        /// The answer says what the recorded one said (status, and body when compared).
        case same
        /// It says something else.
        case different
        /// No answer came (connect, send, read or timeout), where the recording had one.
        case failed
        /// The request was not sent (the capture cut its body).
        case skipped
    }

    /// The request's number, from 1, in recorded order.
    public var number: Int
    public var method: String
    /// The recorded URL (as the capture spells it: pseudonyms, never live values).
    public var url: String
    public var recordedStatus: Int?
    public var status: Int?
    public var outcome: Outcome
    public var differences: [ResponseDifference]
    /// Why there is no answer (`failed`, `skipped`).
    public var error: String?
    /// When it was sent, after the replay started.
    public var sentAfter: Duration
    /// From sending to the end of the answer.
    public var duration: Duration

    public init(
        number: Int, method: String, url: String, recordedStatus: Int?, status: Int?, outcome: Outcome,
        differences: [ResponseDifference] = [], error: String? = nil, sentAfter: Duration = .zero,
        duration: Duration = .zero
    ) {
        self.number = number
        self.method = method
        self.url = url
        self.recordedStatus = recordedStatus
        self.status = status
        self.outcome = outcome
        self.differences = differences
        self.error = error
        self.sentAfter = sentAfter
        self.duration = duration
    }

    /// Whether this result counts against `--allow`.
    public var isDifference: Bool { outcome != .same }
}
