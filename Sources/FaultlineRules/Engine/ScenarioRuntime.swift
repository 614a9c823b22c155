import FaultlineCore

/// One installed scenario: the model, its compiled matchers, its on/off switches and its
/// memory. Lives inside the engine's lock (it holds compiled regular expressions, which are not
/// Sendable), so every method here runs with the lock held.
struct ScenarioRuntime {
    let scenario: Scenario
    let matchers: [FlowMatcher]
    /// `scenario.rules[i].phase`, kept apart so the per-flow loop copies no `Rule`.
    private let phases: [RulePhase]
    /// The rules' IDs, made once rather than at every firing.
    private let ruleIDs: [RuleID]
    /// Some rule waits for `rule:<name>` (`after`/`before`): only then is each firing remembered.
    private let recordsRuleEvents: Bool
    var enabled: Bool
    var ruleEnabled: [Bool]
    var store: ScenarioStateStore

    init(_ scenario: Scenario) {
        self.scenario = scenario
        matchers = scenario.rules.map { FlowMatcher($0.match) }
        phases = scenario.rules.map(\.phase)
        ruleIDs = scenario.rules.map { RuleID(scenario: scenario.name, rule: $0.name) }
        recordsRuleEvents = scenario.rules.contains { rule in
            [rule.conditions.after, rule.conditions.before].contains { reference in
                if case .rule = reference { return true }
                return false
            }
        }
        enabled = scenario.enabled
        ruleEnabled = scenario.rules.map(\.enabled)
        store = ScenarioStateStore(scenario: scenario)
    }

    /// Evaluates one rule (one the engine's `RuleIndex` says may match), appending it to `fired`
    /// if it fires. The engine calls this for its candidates in rule-set and file order.
    ///
    /// Per rule, in this order (README "when"):
    /// 1. the flow must match;
    /// 2. `state`, `after` and `before` must hold, else the rule is skipped and counts nothing;
    /// 3. the rule's match count goes up: `nth` counts exactly these flows, including ones that
    ///    `times` or `probability` then turn away;
    /// 4. `nth` must list the count; 5. fewer than `times` fires so far;
    /// 6. `probability`: a draw from the slot's generator, made only when 1-5 passed, so rules
    ///    that cannot fire do not consume the sequence;
    /// 7. fire: counters, `then.state` (later rules see the new state), event `rule:<name>`.
    mutating func evaluate(rule index: Int, _ facts: inout FlowFacts, into fired: inout [FiredRule]) {
        guard enabled, ruleEnabled[index], matchers[index].matches(&facts) else { return }
        if let firing = decide(rule: index, lineage: facts.flow.lineage) { fired.append(firing) }
    }

    private enum Decision {
        /// Turned away by `state`, `after` or `before`: nothing counted.
        case skipped
        /// Counted as a match, then turned away by `nth`, `times` or `probability`.
        case counted
        case fired(hit: Int, transition: StateTransition?)
    }

    private mutating func decide(rule index: Int, lineage: LineageID?) -> FiredRule? {
        // Fields are read from the array in place: copying the whole `Rule` retains every member.
        let conditions = scenario.rules[index].conditions
        let transitionTarget = scenario.rules[index].transition
        let recordsRuleEvents = self.recordsRuleEvents
        let ruleName = ruleIDs[index].rule
        let marks = conditions.after != nil || conditions.before != nil ? store.marks : []
        let decision: Decision = store.withSlot(for: lineage) { slot in
            if let states = conditions.states, !states.contains(slot.state) { return .skipped }
            if let after = conditions.after, !Self.hasSeen(after, slot: slot, marks: marks) { return .skipped }
            if let before = conditions.before, Self.hasSeen(before, slot: slot, marks: marks) { return .skipped }
            slot.matchCounts[index] += 1
            if let nth = conditions.nth, !nth.contains(slot.matchCounts[index]) { return .counted }
            if let times = conditions.times, slot.fireCounts[index] >= times { return .counted }
            if let probability = conditions.probability, !slot.generator.draw(probability) { return .counted }
            slot.fireCounts[index] += 1
            var transition: StateTransition? = nil
            if let target = transitionTarget {
                transition = StateTransition(from: slot.state, to: target)
                slot.state = target
            }
            if recordsRuleEvents { slot.seen.insert(.rule(ruleName)) }
            return .fired(hit: slot.fireCounts[index], transition: transition)
        }
        switch decision {
        case .skipped:
            return nil
        case .counted:
            store.recordMatch(rule: index)
            return nil
        case .fired(let hit, let transition):
            store.recordMatch(rule: index)
            store.recordFire(rule: index)
            return FiredRule(
                id: ruleIDs[index], file: scenario.file, phase: phases[index], actions: scenario.rules[index].actions,
                transition: transition, hit: hit)
        }
    }

    private static func hasSeen(_ event: EventReference, slot: ScopeSlot, marks: Set<String>) -> Bool {
        switch event {
        case .mark(let label): return marks.contains(label)
        case .role, .rule, .ruleDelivered: return slot.seen.contains(event)
        }
    }

    /// Records an event: a flow stage in the slot of its lineage (the global slot for a global
    /// scenario), a mark for every slot. Disabled scenarios record too, so switching one on
    /// later sees what already happened.
    mutating func observe(_ event: ObservedEvent) {
        switch event {
        case .flow(let role, let stage, let lineage):
            store.withSlot(for: lineage) { _ = $0.seen.insert(.role(role, stage)) }
        case .ruleDelivered(let rule, let lineage):
            // Like `rule:`, a delivery counts in the scenario of the rule that fired.
            guard rule.scenario == scenario.name else { return }
            store.withSlot(for: lineage) { _ = $0.seen.insert(.ruleDelivered(rule.rule)) }
        case .mark(let label):
            store.recordMark(label)
        }
    }
}
