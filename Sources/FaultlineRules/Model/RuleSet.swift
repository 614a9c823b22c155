public import FaultlineConfig

/// Everything loaded from a rules folder: the scenarios and the optional auth profile.
///
/// A `RuleSet` is an immutable value; reloading builds a new one and the engine swaps it in.
public struct RuleSet: Sendable, Equatable {
    public var scenarios: [Scenario]
    public var profile: AuthProfile?

    public init(scenarios: [Scenario] = [], profile: AuthProfile? = nil) {
        self.scenarios = scenarios
        self.profile = profile
    }

    /// An empty rule set: the proxy forwards everything unchanged.
    public static let empty = RuleSet()
}

/// One rule file: named states and the rules that drive them.
public struct Scenario: Sendable, Equatable {
    /// Where scenario state and rule counters live.
    public enum Scope: String, Sendable {
        /// One copy for the whole proxy.
        case global
        /// One copy per credential lineage (needs an auth profile).
        case lineage
    }

    public var name: String
    public var file: String
    public var description: String?
    public var enabled: Bool
    public var states: [String]
    public var initialState: String?
    public var scope: Scope
    public var seed: UInt64
    public var rules: [Rule]

    public init(
        name: String, file: String, description: String? = nil, enabled: Bool = true, states: [String] = [],
        initialState: String? = nil, scope: Scope = .global, seed: UInt64 = 0, rules: [Rule] = []
    ) {
        self.name = name
        self.file = file
        self.description = description
        self.enabled = enabled
        self.states = states
        self.initialState = initialState
        self.scope = scope
        self.seed = seed
        self.rules = rules
    }
}

/// When in a flow a rule is evaluated.
public enum RulePhase: String, Sendable {
    /// Once the request (head, and body when a rule or the profile needs it) has arrived, before upstream.
    case request
    /// Once the upstream response head (and body when needed) has arrived, before the client sees it.
    case response
}

/// One rule: a match, conditions, an optional state transition and actions.
public struct Rule: Sendable, Equatable {
    public var name: String
    public var enabled: Bool
    public var phase: RulePhase
    public var match: FlowMatch
    public var conditions: RuleConditions
    /// The state to move the scenario to when the rule fires.
    public var transition: String?
    public var actions: [RuleAction]
    /// Where the rule starts in its file.
    public var location: SourceLocation

    public init(
        name: String, enabled: Bool = true, phase: RulePhase = .request, match: FlowMatch = FlowMatch(),
        conditions: RuleConditions = RuleConditions(), transition: String? = nil, actions: [RuleAction],
        location: SourceLocation
    ) {
        self.name = name
        self.enabled = enabled
        self.phase = phase
        self.match = match
        self.conditions = conditions
        self.transition = transition
        self.actions = actions
        self.location = location
    }
}
