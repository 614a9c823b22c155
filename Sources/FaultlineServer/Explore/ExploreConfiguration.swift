import FaultlineConfig
public import FaultlineExplore
public import FaultlineRules

/// Exploration mode (`faultline explore`): the selected flows' requests and response heads are
/// held and let go one at a time by an `ExploreScheduler`.
public struct ExploreConfiguration: Sendable {
    /// Which flows are scheduled, in the rule files' match syntax (roles included); an empty
    /// match (the default) selects every flow.
    public var select: FlowMatch
    /// The settle and wait windows.
    public var settings: ExploreScheduler.Settings
    /// The longest a step stays held; past it, it goes and the run is diverged.
    public var stepTimeout: Duration
    /// This run's strategy.
    public var strategy: any ExploreStrategy

    public init(
        strategy: any ExploreStrategy, select: FlowMatch = FlowMatch(),
        settings: ExploreScheduler.Settings = ExploreScheduler.Settings(), stepTimeout: Duration = .seconds(5)
    ) {
        self.strategy = strategy
        self.select = select
        self.settings = settings
        self.stepTimeout = stepTimeout
    }

    /// The hold names of the two kinds of step.
    public static let requestHold = "explore.request"
    public static let responseHold = "explore.response"

    /// The scenario that holds the selected flows, added after the rule files' own: a rule of
    /// theirs that holds a flow in the same phase comes first and keeps that flow out of the
    /// scheduler's hands there.
    var scenario: Scenario {
        let location = SourceLocation.whole("(explore)")
        func hold(_ name: String, _ phase: RulePhase) -> Rule {
            Rule(
                name: phase.rawValue, phase: phase, match: select,
                actions: [.hold(HoldSpec(name: name, timeout: stepTimeout, onTimeout: .release))], location: location)
        }
        return Scenario(
            name: "explore", file: "(explore)", description: "faultline explore: every selected flow is scheduled",
            rules: [hold(Self.requestHold, .request), hold(Self.responseHold, .response)])
    }
}
