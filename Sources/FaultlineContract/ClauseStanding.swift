/// Where one clause stands in a report, as every format lists it: broken, held, nothing to
/// judge, not checked, or disabled.
public enum ClauseStanding: Sendable, Equatable {
    /// `✗`: violated this many times (omitted ones included).
    case broken(violations: Int)
    /// `✓`: the trace gave it something to judge and it held.
    case held
    /// `○`: checked, but the trace never met its case.
    case nothingToJudge(reason: String)
    /// `?`: enabled but could not be checked.
    case notChecked(reason: String)
    /// `-`: turned off by the contract.
    case disabled

    /// `✗ bounded-retry: 1 violation`, `○ exactly-once: nothing to judge, …`: the line the text
    /// and HTML reports show.
    public func line(_ clause: ClauseID) -> String {
        let name = clause.rawValue
        switch self {
        case .broken(let count): return "✗ \(name): \(count) violation\(count == 1 ? "" : "s")"
        case .held: return "✓ \(name)"
        case .nothingToJudge(let reason): return "○ \(name): nothing to judge, \(reason)"
        case .notChecked(let reason): return "? \(name): not checked, \(reason)"
        case .disabled: return "- \(name): disabled by the contract"
        }
    }

    /// `broken`, `held`, `idle`, `skipped`, `disabled`: the HTML report's class for the line.
    public var cssClass: String {
        switch self {
        case .broken: "broken"
        case .held: "held"
        case .nothingToJudge: "idle"
        case .notChecked: "skipped"
        case .disabled: "disabled"
        }
    }
}

extension ContractReport {
    /// Where `clause` stands; nil only for a clause the report does not know (a newer checker's).
    public func standing(of clause: ClauseID) -> ClauseStanding? {
        let count = violationCount(of: clause)
        if count > 0 { return .broken(violations: count) }
        if let idle = clausesUnexercised.first(where: { $0.clause == clause }) {
            return .nothingToJudge(reason: idle.reason)
        }
        if clausesChecked.contains(clause) { return .held }
        if let skipped = clausesSkipped.first(where: { $0.clause == clause }) {
            return .notChecked(reason: skipped.reason)
        }
        if clausesDisabled.contains(clause) { return .disabled }
        return nil
    }
}
