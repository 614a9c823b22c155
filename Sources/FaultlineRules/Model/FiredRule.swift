/// A state change made by a rule's `then.state` when it fired.
public struct StateTransition: Sendable, Equatable {
    public let from: String
    public let to: String

    /// A change from state `from` to state `to`.
    public init(from: String, to: String) {
        self.from = from
        self.to = to
    }
}

/// One rule that fired on a flow: what the proxy must carry out and trace as `rule.fired`.
public struct FiredRule: Sendable, Equatable {
    public let id: RuleID
    /// The rule file, for the trace.
    public let file: String
    public let phase: RulePhase
    public let actions: [RuleAction]
    /// The scenario's state change, when the rule has `then.state` (also when it names the
    /// current state).
    public let transition: StateTransition?
    /// The rule's fire count after this firing, counted where `times` counts: in the whole
    /// scenario (global scope) or in the flow's lineage (lineage scope).
    public let hit: Int

    /// Builds a fired rule; the engine makes these, tests and replays may too.
    public init(
        id: RuleID, file: String, phase: RulePhase, actions: [RuleAction], transition: StateTransition?, hit: Int
    ) {
        self.id = id
        self.file = file
        self.phase = phase
        self.actions = actions
        self.transition = transition
        self.hit = hit
    }
}
