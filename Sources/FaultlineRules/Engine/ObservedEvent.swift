/// Something the proxy saw that `after`/`before` conditions can refer to.
public enum ObservedEvent: Sendable, Hashable {
    /// A flow of this role reached this stage; `lineage` routes it to lineage-scoped scenarios.
    case flow(role: String, stage: FlowStage, lineage: LineageID?)
    /// The response of a flow this rule fired on was fully delivered (`delivered:<rule>`).
    case ruleDelivered(RuleID, lineage: LineageID?)
    /// A mark a test posted (`mark:<label>`).
    case mark(String)
}
