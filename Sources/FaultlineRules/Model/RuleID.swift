/// Names one rule across a rule set the way the trace and the control API write it:
/// `scenario/rule`.
public struct RuleID: Hashable, Sendable, CustomStringConvertible {
    public let scenario: String
    public let rule: String
    /// `scenario/rule`, made once: every firing writes it to the trace.
    public let description: String

    /// The rule named `rule` in scenario `scenario`.
    public init(scenario: String, rule: String) {
        self.scenario = scenario
        self.rule = rule
        self.description = "\(scenario)/\(rule)"
    }

    /// Reads `scenario/rule`, splitting at the first `/`; nil when there is no `/` or either side
    /// is empty. Call it on names typed by a person (control API, command line).
    public init?(_ text: String) {
        guard let slash = text.firstIndex(of: "/") else { return nil }
        let scenario = String(text[..<slash])
        let rule = String(text[text.index(after: slash)...])
        guard !scenario.isEmpty, !rule.isEmpty else { return nil }
        self.init(scenario: scenario, rule: rule)
    }

}
