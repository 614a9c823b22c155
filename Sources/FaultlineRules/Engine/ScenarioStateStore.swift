import FaultlineCore

/// The run-time memory of one scenario: its state, per-rule counters, probability generator and
/// the events its `after`/`before` conditions have seen.
///
/// Theory of operation: a global scenario has one `ScopeSlot`; a lineage-scoped scenario has one
/// per lineage, plus one shared by flows that belong to no lineage (key nil), each created on
/// first use with the initial state and a generator seeded from the scenario seed and the
/// lineage. Marks are posted by tests for the whole proxy, so they live beside the slots and
/// every slot sees them. The store is a plain value: the engine holds it under its lock.
struct ScenarioStateStore {
    let initialState: String
    let scope: Scenario.Scope
    let seed: UInt64
    let ruleCount: Int
    private(set) var slots: [LineageID?: ScopeSlot] = [:]
    private(set) var marks: Set<String> = []
    /// Per rule across all slots: flows counted as matches (see `ScopeSlot.matchCounts`).
    private(set) var matchTotals: [Int]
    /// Fires per rule across all slots (what `rules()` reports).
    private(set) var fireTotals: [Int]

    init(scenario: Scenario) {
        initialState = RuleEngine.initialState(of: scenario)
        scope = scenario.scope
        seed = scenario.seed
        ruleCount = scenario.rules.count
        matchTotals = Array(repeating: 0, count: ruleCount)
        fireTotals = Array(repeating: 0, count: ruleCount)
    }

    /// The slot key a flow with this lineage uses: always nil for a global scenario.
    func key(for lineage: LineageID?) -> LineageID? {
        scope == .lineage ? lineage : nil
    }

    /// Runs `body` on the slot for `lineage`, creating it if needed.
    mutating func withSlot<R>(for lineage: LineageID?, _ body: (inout ScopeSlot) -> R) -> R {
        let key = key(for: lineage)
        if slots[key] == nil { slots[key] = newSlot(key) }
        return body(&slots[key]!)
    }

    /// The state of an existing slot, without creating one.
    func state(for lineage: LineageID?) -> String {
        slots[key(for: lineage)]?.state ?? initialState
    }

    mutating func recordMatch(rule index: Int) {
        matchTotals[index] += 1
    }

    mutating func recordFire(rule index: Int) {
        fireTotals[index] += 1
    }

    mutating func recordMark(_ label: String) {
        marks.insert(label)
    }

    /// Back to the initial state with no counters, slots or seen events.
    mutating func reset() {
        slots = [:]
        marks = []
        matchTotals = Array(repeating: 0, count: ruleCount)
        fireTotals = Array(repeating: 0, count: ruleCount)
    }

    private func newSlot(_ key: LineageID?) -> ScopeSlot {
        ScopeSlot(
            state: initialState, matchCounts: Array(repeating: 0, count: ruleCount),
            fireCounts: Array(repeating: 0, count: ruleCount), generator: SeededGenerator(seed: seed, lineage: key))
    }
}

/// One copy of a scenario's memory: the whole scenario (global scope) or one lineage.
struct ScopeSlot {
    var state: String
    /// Per rule: matching flows that passed the state, `after` and `before` conditions.
    var matchCounts: [Int]
    /// Per rule: times it fired.
    var fireCounts: [Int]
    var generator: SeededGenerator
    /// `.role` events observed for this slot and `.rule` events of rules that fired in it.
    var seen: Set<EventReference> = []
}
