/// When a matching rule fires.
public struct RuleConditions: Sendable, Equatable {
    /// The scenario must be in one of these states.
    public var states: [String]?
    /// Fire at most this many times.
    public var times: Int?
    /// Fire only on these matching flows, counted from 1.
    public var nth: [Int]?
    /// Fire with this probability, drawn from the scenario's seeded generator.
    public var probability: Double?
    /// Only once this event has been seen.
    public var after: EventReference?
    /// Only until this event has been seen.
    public var before: EventReference?

    public init(
        states: [String]? = nil, times: Int? = nil, nth: [Int]? = nil, probability: Double? = nil,
        after: EventReference? = nil, before: EventReference? = nil
    ) {
        self.states = states
        self.times = times
        self.nth = nth
        self.probability = probability
        self.after = after
        self.before = before
    }
}

/// Something the proxy sees that conditions and hold releases can refer to:
/// `"logout.forwarded"`, `"rule:hold-refresh"`, `"delivered:seen-profile"`, `"mark:cancel"`.
public enum EventReference: Sendable, Hashable, CustomStringConvertible {
    /// A request of this role reached this stage.
    case role(String, FlowStage)
    /// A rule of the same scenario fired.
    case rule(String)
    /// The response of a flow that a rule of the same scenario fired on was fully delivered to
    /// the client (its last byte handed to the connection, like a role's `delivered`): a step of
    /// a request no role names (a response rule fires when the head arrives, earlier).
    case ruleDelivered(String)
    /// A test posted a mark with this label.
    case mark(String)

    public var description: String {
        switch self {
        case .role(let role, let stage): return "\(role).\(stage.rawValue)"
        case .rule(let name): return "rule:\(name)"
        case .ruleDelivered(let name): return "delivered:\(name)"
        case .mark(let label): return "mark:\(label)"
        }
    }
}

/// The stages of a flow that event references can name.
public enum FlowStage: String, Sendable, CaseIterable {
    /// The request head arrived from the client.
    case received
    /// The request was sent upstream.
    case forwarded
    /// The response head arrived from upstream.
    case responded
    /// The response was fully delivered to the client.
    case delivered
}
