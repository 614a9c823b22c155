/// What a flow asks the rules, as a value: the flow core emits it (`FlowAction.decide`) and the
/// driver, which owns the rules engine, the lineage tracker and the cookie memory, answers with a
/// `RuleAnswer` before the flow's next input, in the manner of mitmproxy's layers yielding a
/// hook and resuming on its reply. Answering on the loop, before anything else happens to the
/// flow, is what keeps a `times: 1` rule atomic.
public enum RuleQuestion: Sendable, Equatable {
    /// The request is read as far as the rules need: classify it, find its lineage, evaluate the
    /// request phase (`FlowPolicy.decideRequest`).
    case request(FlowView)
    /// The upstream's response head arrived: remember its cookies when a rule replays cookies,
    /// evaluate the response phase, and number a login's lineage now when `reservesLineage`
    /// (a capture names the lineage its response body starts).
    case response(FlowView, setCookies: [String], reservesLineage: Bool)
}

/// The driver's reply to a `RuleQuestion`.
public enum RuleAnswer: Sendable, Equatable {
    case request(RequestDecision)
    case response(ResponseDecision)
}

/// What the request-phase decision found out about a flow.
public struct RequestDecision: Sendable, Equatable {
    public var role: String
    public var credentials: [Credential]
    public var lineage: LineageID?
    public var fired: [FiredRule]
    /// An auth profile was loaded when the decision was made: the flow tells the tracker its steps.
    public var tracksLineage: Bool

    public init(role: String, credentials: [Credential], lineage: LineageID?, fired: [FiredRule], tracksLineage: Bool) {
        self.role = role
        self.credentials = credentials
        self.lineage = lineage
        self.fired = fired
        self.tracksLineage = tracksLineage
    }

    /// A flow nobody needed to look at: a business request, no rule fired.
    public static let untouched = RequestDecision(
        role: FlowRole.business, credentials: [], lineage: nil, fired: [], tracksLineage: false)
}

/// What the response-phase decision found.
public struct ResponseDecision: Sendable, Equatable {
    public var fired: [FiredRule]
    /// The lineage numbered for a login's response, when the question asked for one.
    public var reservedLineage: LineageID?
    /// The last Set-Cookie value remembered for each cookie a fired rule replays (`setCookie:
    /// { replay: NAME }`), read as the rule fired; a cookie never seen is absent.
    public var replayedCookies: [String: String]

    public init(fired: [FiredRule], reservedLineage: LineageID? = nil, replayedCookies: [String: String] = [:]) {
        self.fired = fired
        self.reservedLineage = reservedLineage
        self.replayedCookies = replayedCookies
    }
}
