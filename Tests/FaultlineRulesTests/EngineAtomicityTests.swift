import Testing

@testable import FaultlineRules

/// Rules/README.md ("Counting and state transitions are atomic"): two concurrent requests can
/// never both win a `times: 1` rule, and a transition happens exactly once. Every round starts 50
/// threads together against one engine.
@Suite struct EngineAtomicityTests {
    private static let threads = 50

    @Test func timesOneFiresOnceAndTransitionsOnceUnderContention() {
        for round in 0..<200 {
            let engine = Fixture.engine(
                scenario(
                    "race", states: ["fresh", "expired"], initialState: "fresh",
                    rules: [
                        rule("expire", when: RuleConditions(states: ["fresh"], times: 1), then: "expired"),
                        rule("count-expired", when: RuleConditions(states: ["expired"])),
                    ]))
            let fired = Collector<FiredRule>()
            Fixture.concurrently(Self.threads) { _ in
                fired.append(contentsOf: engine.evaluate(FlowView(), phase: .request))
            }
            let wins = fired.all.filter { $0.id.rule == "expire" }
            let transitions = fired.all.compactMap(\.transition)
            let expiredSeen = fired.all.filter { $0.id.rule == "count-expired" }.count
            #expect(wins.count == 1, "round \(round): \(wins.count) fires")
            #expect(transitions == [StateTransition(from: "fresh", to: "expired")], "round \(round)")
            // Every flow, the winner included (its later rule sees the new state), saw the new
            // state: none slipped between the check and the fire.
            #expect(expiredSeen == Self.threads, "round \(round)")
            #expect(engine.rules().map(\.hits) == [1, Self.threads], "round \(round)")
            if wins.count != 1 || transitions.count != 1 || expiredSeen != Self.threads { break }
        }
    }

    @Test func nthFiresExactlyOnceUnderContention() {
        for round in 0..<50 {
            let engine = Fixture.engine(scenario("s", rules: [rule("25th", when: RuleConditions(nth: [25]))]))
            let fired = Collector<FiredRule>()
            Fixture.concurrently(Self.threads) { _ in
                fired.append(contentsOf: engine.evaluate(FlowView(), phase: .request))
            }
            #expect(fired.all.count == 1, "round \(round)")
            if fired.all.count != 1 { break }
        }
    }

    @Test func timesFiveGivesFiveDistinctHits() {
        let engine = Fixture.engine(scenario("s", rules: [rule("five", when: RuleConditions(times: 5))]))
        let fired = Collector<FiredRule>()
        Fixture.concurrently(Self.threads) { _ in
            fired.append(contentsOf: engine.evaluate(FlowView(), phase: .request))
        }
        #expect(fired.all.map(\.hit).sorted() == [1, 2, 3, 4, 5])
    }

    @Test func lineageSlotsAreCreatedOnceUnderContention() {
        let engine = Fixture.engine(
            scenario(
                "s", scope: .lineage,
                rules: [rule("once", when: RuleConditions(times: 1), then: "done")]))
        let fired = Collector<FiredRule>()
        Fixture.concurrently(Self.threads) { index in
            let lineage = LineageID(index % 5 + 1)
            fired.append(contentsOf: engine.evaluate(FlowView(lineage: lineage), phase: .request))
            engine.observe(.flow(role: "business", stage: .forwarded, lineage: lineage))
        }
        #expect(fired.all.count == 5)
        #expect(engine.states().first?.lineages.map(\.state) == Array(repeating: "done", count: 5))
    }
}
