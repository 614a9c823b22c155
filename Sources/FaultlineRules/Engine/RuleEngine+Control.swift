import FaultlineCore

/// What the control API and the command line do to a running engine: list rules and states,
/// switch rules on and off, force and reset states.
extension RuleEngine {
    /// Every rule in rule-set order with its switches and fire count.
    public func rules() -> [RuleStatus] {
        state.withLock { engine in
            engine.runtimes.flatMap { runtime in
                runtime.scenario.rules.indices.map { index in
                    RuleStatus(
                        id: RuleID(scenario: runtime.scenario.name, rule: runtime.scenario.rules[index].name),
                        file: runtime.scenario.file, phase: runtime.scenario.rules[index].phase,
                        enabled: runtime.enabled && runtime.ruleEnabled[index], ruleEnabled: runtime.ruleEnabled[index],
                        scenarioEnabled: runtime.enabled, hits: runtime.store.fireTotals[index],
                        matches: runtime.store.matchTotals[index])
                }
            }
        }
    }

    /// Switches one rule on or off until the next reload that changes its scenario. Throws
    /// `unknownRule` (with the nearest rule ID) when there is no such rule.
    public func setEnabled(_ enabled: Bool, rule: RuleID) throws(RuleEngineError) {
        try state.withLock { (engine) throws(RuleEngineError) in
            guard let scenarioIndex = engine.runtimeIndex(named: rule.scenario),
                let ruleIndex = engine.runtimes[scenarioIndex].scenario.rules.firstIndex(where: { $0.name == rule.rule }
                )
            else {
                let candidates = engine.runtimes.flatMap { runtime in
                    runtime.scenario.rules.map { RuleID(scenario: runtime.scenario.name, rule: $0.name).description }
                }
                throw RuleEngineError(.unknownRule, subject: rule.description, candidates: candidates)
            }
            engine.runtimes[scenarioIndex].ruleEnabled[ruleIndex] = enabled
            refreshSummary(engine)
        }
    }

    /// Switches a whole scenario on or off (its rules keep their own switches). Throws
    /// `unknownScenario` when there is no such scenario.
    public func setEnabled(_ enabled: Bool, scenario: String) throws(RuleEngineError) {
        try state.withLock { (engine) throws(RuleEngineError) in
            let index = try engine.requireRuntime(named: scenario)
            engine.runtimes[index].enabled = enabled
            refreshSummary(engine)
        }
    }

    /// Every scenario's state, with each lineage's for lineage-scoped scenarios.
    public func states() -> [ScenarioStateInfo] {
        state.withLock { engine in
            engine.runtimes.map { runtime in
                let store = runtime.store
                let lineages = store.slots.compactMap { key, slot in
                    key.map { LineageState(lineage: $0, state: slot.state) }
                }
                return ScenarioStateInfo(
                    scenario: runtime.scenario.name, scope: runtime.scenario.scope, state: store.state(for: nil),
                    lineages: lineages.sorted { $0.lineage < $1.lineage })
            }
        }
    }

    /// Forces a scenario's state: the global one, or with `lineage` that lineage's in a
    /// lineage-scoped scenario (nil there means flows with no lineage). Counters are kept.
    /// Throws `unknownScenario`, `unknownState` when the scenario declares states and this is
    /// not one, or `notLineageScoped` when a lineage is given for a global scenario.
    public func setState(_ newState: String, scenario: String, lineage: LineageID? = nil) throws(RuleEngineError) {
        try state.withLock { (engine) throws(RuleEngineError) in
            let index = try engine.requireRuntime(named: scenario)
            let model = engine.runtimes[index].scenario
            if lineage != nil, model.scope != .lineage {
                throw RuleEngineError(.notLineageScoped, subject: scenario)
            }
            if !model.states.isEmpty, !model.states.contains(newState) {
                throw RuleEngineError(.unknownState, subject: newState, candidates: model.states, context: scenario)
            }
            engine.runtimes[index].store.withSlot(for: lineage) { $0.state = newState }
        }
    }

    /// Puts one scenario (or, with nil, every scenario) back in its initial state with counters,
    /// lineage slots and seen events (marks included) cleared. `setEnabled` switches are kept.
    /// Throws `unknownScenario` for a name that is not installed.
    public func resetState(scenario: String? = nil) throws(RuleEngineError) {
        try state.withLock { (engine) throws(RuleEngineError) in
            if let scenario {
                let index = try engine.requireRuntime(named: scenario)
                engine.runtimes[index].store.reset()
            } else {
                for index in engine.runtimes.indices { engine.runtimes[index].store.reset() }
            }
        }
    }
}

extension EngineState {
    func requireRuntime(named name: String) throws(RuleEngineError) -> Int {
        guard let index = runtimeIndex(named: name) else {
            throw RuleEngineError(.unknownScenario, subject: name, candidates: runtimes.map(\.scenario.name))
        }
        return index
    }
}
