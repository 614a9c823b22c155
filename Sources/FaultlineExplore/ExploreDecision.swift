/// One decision of a run, as the trace's `explore.step` event and the report show it.
public struct ExploreDecision: Sendable, Equatable, Codable {
    /// Counted from 0 within the run.
    public let index: Int
    /// What was pending, oldest first (`request GET /v1/messages`), with each step's flow.
    public let pending: [String]
    public let pendingFlows: [UInt64]
    /// How many choices there were: the pending steps, plus one when waiting was allowed.
    public let alternatives: Int
    /// `0`, `2`, `w`.
    public let choice: String
    /// The step let go (nil for a wait).
    public let step: String?
    public let flow: UInt64?

    public init(
        index: Int, pending: [ExploreStep], alternatives: Int, choice: ExploreChoice, chosen: ExploreStep?
    ) {
        self.index = index
        self.pending = pending.map(\.label)
        self.pendingFlows = pending.map(\.flow)
        self.alternatives = alternatives
        self.choice = choice.token
        self.step = chosen?.label
        self.flow = chosen?.flow
    }
}
