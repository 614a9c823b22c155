public import FaultlineRules

/// How the playbooks write the parts of actions both the flow and the session tests show.
public enum ActionText {
    /// `business.received lineage=L1`, `delivered:s/r`, `mark:go`.
    public static func event(_ event: ObservedEvent) -> String {
        switch event {
        case .flow(let role, let stage, let lineage):
            return "\(role).\(stage.rawValue)" + (lineage.map { " lineage=\($0)" } ?? "")
        case .ruleDelivered(let rule, let lineage):
            return "delivered:\(rule)" + (lineage.map { " lineage=\($0)" } ?? "")
        case .mark(let label):
            return "mark:\(label)"
        }
    }

    /// `60s`, `1.5s`, `0.25s`.
    public static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return "\(seconds)s" }
        return "\(Double(seconds) + Double(attoseconds) / 1e18)s"
    }
}
