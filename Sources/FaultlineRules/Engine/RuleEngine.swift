import FaultlineCore
import Synchronization

/// The rule engine: decides which rules fire on a flow and keeps scenario state, counters and
/// seen events. Pure (no I/O) and thread-safe: flows on every event loop call it directly.
///
/// Theory of operation: all mutable state (the installed scenarios with their compiled
/// matchers, switches and memory) sits in one `StateLock`. Each public call takes it once and does
/// all its reads and writes under it, so concurrent calls are linearizable: with 50 matching
/// flows at once, a `times: 1` rule fires for exactly one of them and its transition happens
/// exactly once (Rules/README.md, "when"). Matching also runs under the lock, because compiled regular
/// expressions are not Sendable; rules are cheap next to a network round trip, and cheaper
/// still because an evaluation tests only the rules its `RuleIndex` says may match.
public final class RuleEngine: Sendable {
    /// The state of a scenario that declares no states and no `initialState`.
    public static let defaultInitialState = "started"

    let state: StateLock<EngineState>
    /// `EngineSummary` bits, readable without the lock (see RuleEngine+Summary.swift).
    let summaryBits = Atomic<UInt8>(0)

    /// Installs a rule set; every scenario starts in its initial state with no counters.
    public init(ruleSet: RuleSet) {
        let engine = EngineState(ruleSet: ruleSet)
        state = StateLock(engine)
        summaryBits.store(EngineSummary(engine).rawValue, ordering: .releasing)
    }

    /// The rule set as loaded (switches set through `setEnabled` are not folded into it).
    public var ruleSet: RuleSet {
        state.withLock { $0.ruleSet }
    }

    /// Hot reload: installs a new rule set. A scenario whose `Scenario` value is unchanged
    /// (same name, equal value) keeps its state, counters, seen events and `setEnabled`
    /// switches; a changed or new scenario starts fresh; a removed one is forgotten.
    public func replaceRuleSet(_ ruleSet: RuleSet) {
        state.withLock { engine in
            engine.replace(with: ruleSet)
            refreshSummary(engine)
        }
    }

    /// True when some enabled request-phase rule matches on the request body, so the proxy must
    /// read the body (up to its limit) before calling `evaluate(_:phase: .request)`. The auth
    /// profile's own needs are `AuthProfile.readsRequestBodies`.
    public var needsRequestBody: Bool { summary.contains(.requestBody) }

    /// True when some enabled response-phase rule matches on the request body, so the proxy
    /// must keep a copy of the request body for `evaluate(_:phase: .response)`.
    public var needsRequestBodyAtResponse: Bool { summary.contains(.requestBodyAtResponse) }

    /// Evaluates every enabled rule of `phase`: scenarios in rule-set order, rules in file
    /// order. Call once per flow per phase; returns the rules that fired, in that order (several
    /// may fire on one flow), each with its actions and state transition. Counters, states,
    /// probability draws and `rule:` events change here, atomically for the whole call.
    public func evaluate(_ flow: FlowView, phase: RulePhase) -> [FiredRule] {
        guard hasRules(in: phase) else { return [] }
        var facts = FlowFacts(flow)
        return state.withLock { engine in engine.evaluate(&facts, phase: phase) }
    }

    /// Records an event for `after`/`before` conditions: call when a flow reaches a stage
    /// (received, forwarded, responded, delivered) and when a test posts a mark. A flow stage
    /// counts for global scenarios and for its own lineage in lineage-scoped ones (flows with no
    /// lineage share one slot); a mark counts everywhere. Disabled scenarios record too.
    public func observe(_ event: ObservedEvent) {
        // Flow stages matter only to `after`/`before` conditions; most rule sets have none.
        switch event {
        case .mark: break
        case .flow, .ruleDelivered: if !observesFlowEvents { return }
        }
        state.withLock { engine in
            for index in engine.runtimes.indices { engine.runtimes[index].observe(event) }
        }
    }

    static func initialState(of scenario: Scenario) -> String {
        scenario.initialState ?? scenario.states.first ?? defaultInitialState
    }
}

/// Everything the engine's lock protects.
struct EngineState {
    private(set) var ruleSet: RuleSet
    var runtimes: [ScenarioRuntime]
    /// Each phase's rules by the keys their matches demand; rebuilt when the rule set changes
    /// (switches do not change what a rule matches).
    private var requestIndex: RuleIndex
    private var responseIndex: RuleIndex
    /// The candidate bits of the evaluation in progress, kept so evaluating allocates nothing.
    private var candidates: [UInt64] = []

    init(ruleSet: RuleSet) {
        self.ruleSet = ruleSet
        let runtimes = ruleSet.scenarios.map(ScenarioRuntime.init)
        self.runtimes = runtimes
        requestIndex = RuleIndex(runtimes, phase: .request)
        responseIndex = RuleIndex(runtimes, phase: .response)
    }

    /// Evaluates the rules of `phase` that the index says may match, in rule-set and file order.
    mutating func evaluate(_ facts: inout FlowFacts, phase: RulePhase) -> [FiredRule] {
        let index = phase == .request ? requestIndex : responseIndex
        let words = index.markCandidates(&facts, in: &candidates)
        var fired: [FiredRule] = []
        for word in 0..<words {
            var bits = candidates[word]
            while bits != 0 {
                let position = index.position(of: word << 6 | bits.trailingZeroBitCount)
                bits &= bits - 1
                runtimes[position.scenario].evaluate(rule: position.rule, &facts, into: &fired)
            }
        }
        return fired
    }

    mutating func replace(with newSet: RuleSet) {
        var previous: [String: ScenarioRuntime] = [:]
        for runtime in runtimes where previous[runtime.scenario.name] == nil {
            previous[runtime.scenario.name] = runtime
        }
        runtimes = newSet.scenarios.map { scenario in
            if let kept = previous.removeValue(forKey: scenario.name), kept.scenario == scenario { return kept }
            return ScenarioRuntime(scenario)
        }
        ruleSet = newSet
        requestIndex = RuleIndex(runtimes, phase: .request)
        responseIndex = RuleIndex(runtimes, phase: .response)
    }

    func runtimeIndex(named name: String) -> Int? {
        runtimes.firstIndex { $0.scenario.name == name }
    }
}
