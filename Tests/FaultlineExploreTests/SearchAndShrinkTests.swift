import Testing

@testable import FaultlineExplore

/// Exhaustive search and shrinking on a simulated system: every step pending from the start,
/// one decision per step, no waiting (the scheduler's own behaviour is ExploreSchedulerTests').
@Suite struct SearchAndShrinkTests {
    /// The record of a run over steps `flows` (one step per flow, all pending at once) that takes
    /// `choices` and then the oldest step.
    static func simulate(_ flows: [UInt64], _ choices: [ExploreChoice]) -> ExploreRunRecord {
        var pending = flows.map {
            ExploreStep(id: $0, flow: $0, connection: $0, phase: .request, request: "GET /\($0)")
        }
        var record = ExploreRunRecord()
        var index = 0
        while !pending.isEmpty {
            var choice = index < choices.count ? choices[index] : .step(0)
            if case .step(let position) = choice, position >= pending.count { choice = .step(0) }
            guard case .step(let position) = choice else { preconditionFailure("no waits here") }
            record.decisions.append(
                ExploreDecision(
                    index: index, pending: pending, alternatives: pending.count, choice: choice,
                    chosen: pending[position]))
            record.choices.append(choice)
            record.order.append(pending.remove(at: position).label)
            index += 1
        }
        return record
    }

    static func explore(_ flows: [UInt64], maxSteps: Int = 10, independent: @escaping (UInt64, UInt64) -> Bool)
        -> (orders: [[String]], search: ExhaustiveSearch)
    {
        var search = ExhaustiveSearch(maxSteps: maxSteps)
        var prefix: [ExploreChoice]? = search.first
        var orders: [[String]] = []
        while let choices = prefix, orders.count < 1000 {
            let record = simulate(flows, choices)
            orders.append(record.order)
            prefix = search.next(after: record, independent: independent)
        }
        return (orders, search)
    }

    @Test func dependentStepsAreTriedInEveryOrder() {
        let (orders, search) = Self.explore([1, 2, 3]) { _, _ in false }
        #expect(orders.count == 6)
        #expect(Set(orders).count == 6)
        #expect(search.pruned == 0 && search.cut == 0)
    }

    /// Two independent flows: swapping them gives the same interleaving up to independence, so
    /// only one order is run.
    @Test func swappingIndependentStepsIsNotExploredAgain() {
        let (orders, search) = Self.explore([1, 2]) { _, _ in true }
        #expect(orders == [["request GET /1", "request GET /2"]])
        #expect(search.pruned == 1)
    }

    /// Flows 1 and 2 share a lineage; 3 is another account's: both orders of 1 and 2 are run,
    /// and 3 is never tried earlier than it came (two runs instead of six).
    @Test func onlyOrdersOfDependentStepsMultiply() {
        let (orders, search) = Self.explore([1, 2, 3]) { a, b in a == 3 || b == 3 }
        let relative = Set(orders.map { order in order.filter { $0 != "request GET /3" } })
        #expect(relative == [["request GET /1", "request GET /2"], ["request GET /2", "request GET /1"]])
        #expect(orders.count == 2 && search.pruned > 0, "\(orders)")
    }

    @Test func decisionsPastTheBoundGoInArrivalOrderAndAreCounted() {
        let (orders, search) = Self.explore([1, 2, 3], maxSteps: 1) { _, _ in false }
        #expect(orders.count == 3, "only the first decision is explored: \(orders)")
        #expect(search.cut > 0)
    }

    // MARK: Shrinking

    @Test func ddminFindsTheOneDeviationThatMatters() async {
        // Fails whenever decision 4 chooses step 1, whatever else.
        let failing: [ExploreChoice] = [.step(2), .step(0), .wait, .step(1), .step(1), .step(3), .step(1)]
        let deviations = Shrinker.deviations(of: failing)
        #expect(deviations.count == 6)
        let result = await Shrinker.ddmin(deviations, budget: 50) { kept in
            Shrinker.choices(keeping: kept).indices.contains(4) && Shrinker.choices(keeping: kept)[4] == .step(1)
        }
        #expect(result.deviations == [Shrinker.Deviation(index: 4, choice: .step(1))])
        #expect(result.runs <= 12, "\(result.runs) runs")
        #expect(Shrinker.choices(keeping: result.deviations) == [.step(0), .step(0), .step(0), .step(0), .step(1)])
    }

    @Test func ddminKeepsTwoDeviationsThatAreNeededTogether() async {
        let failing: [ExploreChoice] = [.step(1), .wait, .step(0), .step(2), .step(1), .wait]
        let result = await Shrinker.ddmin(Shrinker.deviations(of: failing), budget: 50) { kept in
            Set(kept.map(\.index)).isSuperset(of: [1, 3])
        }
        #expect(Set(result.deviations.map(\.index)) == [1, 3])
    }

    @Test func aWaitLeftOutMovesTheLaterDecisionsUp() async {
        // A run as the scheduler plays it: a wait that nothing ends lets no step go, so the run
        // fails when it waits after exactly four steps went, wherever that decision falls.
        func fails(_ choices: [ExploreChoice]) -> Bool {
            var steps = 0
            for choice in choices {
                if choice == .wait, steps == 4 { return true }
                if choice != .wait { steps += 1 }
            }
            return false
        }
        let failing: [ExploreChoice] = [
            .wait, .step(0), .step(0), .step(0), .step(0), .wait, .step(0), .step(0), .wait,
        ]
        let deviations = Shrinker.deviations(of: failing)
        let result = await Shrinker.ddmin(deviations, budget: 20) { kept in
            fails(Shrinker.choices(keeping: kept, of: deviations))
        }
        #expect(result.deviations == [Shrinker.Deviation(index: 5, choice: .wait)])
        #expect(
            Shrinker.choices(keeping: result.deviations, of: deviations) == [
                .step(0), .step(0), .step(0), .step(0), .wait,
            ])
        // Kept at its old index, the wait comes after five steps and the run passes.
        #expect(!fails(Shrinker.choices(keeping: result.deviations)))
    }

    @Test func arrivalOrderFailingShrinksToNothing() async {
        let result = await Shrinker.ddmin(Shrinker.deviations(of: [.step(1), .wait]), budget: 10) { _ in true }
        #expect(result.deviations.isEmpty && result.runs == 1)
    }

    @Test func theBudgetBoundsTheRuns() async {
        let failing = (0..<40).map { _ in ExploreChoice.step(1) }
        let result = await Shrinker.ddmin(Shrinker.deviations(of: failing), budget: 5) { kept in kept.count > 30 }
        #expect(result.runs == 5)
        #expect(result.deviations.count == 40, "nothing smaller was found within the budget")
    }
}
