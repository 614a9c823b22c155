/// A state change made by a rule's `then.state` when it fired.
public struct StateTransition: Sendable, Equatable {
    public let from: String
    public let to: String

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

/// Something the proxy saw that `after`/`before` conditions can refer to.
public enum ObservedEvent: Sendable, Hashable {
    /// A flow of this role reached this stage; `lineage` routes it to lineage-scoped scenarios.
    case flow(role: String, stage: FlowStage, lineage: LineageID?)
    /// A mark a test posted (`mark:<label>`).
    case mark(String)
}

/// One rule as the control API lists it.
public struct RuleStatus: Sendable, Equatable {
    public let id: RuleID
    public let file: String
    public let phase: RulePhase
    /// True when both the rule and its scenario are enabled.
    public let enabled: Bool
    public let ruleEnabled: Bool
    public let scenarioEnabled: Bool
    /// Fires since the scenario started or was last reset, over all lineages.
    public let hits: Int
    /// Matching flows that passed `state`, `after` and `before` (what `nth` counts), over all
    /// lineages; flows that `nth`, `times` or `probability` then turned away are included.
    public let matches: Int
}

/// One scenario's current state as the control API lists it.
public struct ScenarioStateInfo: Sendable, Equatable {
    public let scenario: String
    public let scope: Scenario.Scope
    /// The global state; for a lineage-scoped scenario, the state of flows with no lineage.
    public let state: String
    /// Lineage-scoped scenarios: the state of each lineage that has touched the scenario, in
    /// lineage order.
    public let lineages: [LineageState]
}

/// A lineage's state in a lineage-scoped scenario.
public struct LineageState: Sendable, Equatable {
    public let lineage: LineageID
    public let state: String
}
