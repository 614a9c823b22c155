import FaultlineCore

/// A control request the engine cannot carry out: an unknown name (with the nearest valid one,
/// when there is a plausible one) or an undeclared state.
public struct RuleEngineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong; compare with the static constants.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public static let unknownRule = Code("unknown-rule")
        public static let unknownScenario = Code("unknown-scenario")
        public static let unknownState = Code("unknown-state")
        /// A lineage was given for a scenario whose scope is global.
        public static let notLineageScoped = Code("not-lineage-scoped")
        public var description: String { name }
    }

    public let code: Code
    /// The name that was asked for.
    public let subject: String
    /// The nearest valid name, if one is close enough to be a typo.
    public let suggestion: String?
    /// Where the name was looked up (a scenario name for `unknownState`), for the message.
    public let context: String?

    init(_ code: Code, subject: String, candidates: [String] = [], context: String? = nil) {
        self.code = code
        self.subject = subject
        self.context = context
        suggestion = EditDistance.nearest(to: subject, in: candidates)
    }

    public var description: String {
        var text: String
        switch code {
        case .unknownRule: text = "unknown rule '\(subject)'"
        case .unknownScenario: text = "unknown scenario '\(subject)'"
        case .unknownState: text = "'\(subject)' is not a declared state of scenario '\(context ?? "")'"
        case .notLineageScoped: text = "scenario '\(subject)' is not lineage-scoped; a lineage cannot be given"
        default: text = "\(code) '\(subject)'"
        }
        if let suggestion { text += " (did you mean '\(suggestion)'?)" }
        return text
    }
}
