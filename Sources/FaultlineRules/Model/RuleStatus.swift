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
