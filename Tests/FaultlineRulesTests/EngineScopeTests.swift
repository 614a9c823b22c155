import Testing

@testable import FaultlineRules

/// `scope: "lineage"`: state, counters, generator and seen events per lineage.
@Suite struct EngineScopeTests {
    private let l1 = LineageID(1)
    private let l2 = LineageID(2)

    private func lineageScenario() -> Scenario {
        scenario(
            "per-lineage", states: ["fresh", "expired", "refreshed"], scope: .lineage,
            rules: [
                rule(
                    "expire", match: FlowMatch(role: "business"), when: RuleConditions(states: ["fresh"], times: 1),
                    then: "expired"),
                rule(
                    "refresh", match: FlowMatch(role: "refresh"), when: RuleConditions(states: ["expired"]),
                    then: "refreshed"),
            ])
    }

    @Test func twoLineagesProgressIndependently() {
        let engine = Fixture.engine(lineageScenario())
        #expect(Fixture.fire(engine, FlowView(lineage: l1)) == ["per-lineage/expire"])
        #expect(Fixture.fire(engine, FlowView(lineage: l1)).isEmpty, "L1 spent its times: 1")
        #expect(Fixture.fire(engine, FlowView(lineage: l2)) == ["per-lineage/expire"], "L2 has its own counter")
        #expect(Fixture.fire(engine, FlowView(role: "refresh", lineage: l1)) == ["per-lineage/refresh"])
        let info = engine.states()[0]
        #expect(info.scope == .lineage)
        #expect(
            info.lineages == [
                LineageState(lineage: l1, state: "refreshed"), LineageState(lineage: l2, state: "expired"),
            ])
        #expect(info.state == "fresh", "flows without lineage have their own slot")
        #expect(Fixture.fire(engine, FlowView(lineage: nil)) == ["per-lineage/expire"])
        #expect(Fixture.fire(engine, FlowView(lineage: nil)).isEmpty)
        #expect(engine.rules()[0].hits == 3, "hits add up over lineages")
    }

    @Test func hitCountsPerLineage() {
        let engine = Fixture.engine(scenario("s", scope: .lineage, rules: [rule("r", when: RuleConditions(times: 2))]))
        let hits = [l1, l1, l2, l1, l2].map { engine.evaluate(FlowView(lineage: $0), phase: .request).first?.hit }
        #expect(hits == [1, 2, 1, nil, 2])
    }

    @Test func globalScenariosIgnoreLineage() {
        let engine = Fixture.engine(scenario("g", rules: [rule("once", when: RuleConditions(times: 1))]))
        #expect(Fixture.fire(engine, FlowView(lineage: l1)) == ["g/once"])
        #expect(Fixture.fire(engine, FlowView(lineage: l2)).isEmpty)
        #expect(engine.states()[0].lineages.isEmpty)
    }

    @Test func roleEventsCountOnlyForTheirLineage() {
        let engine = Fixture.engine(
            scenario(
                "s", scope: .lineage,
                rules: [rule("after-logout", when: RuleConditions(after: .role("logout", .forwarded)))]))
        engine.observe(.flow(role: "logout", stage: .forwarded, lineage: l1))
        #expect(Fixture.fire(engine, FlowView(lineage: l1)) == ["s/after-logout"])
        #expect(Fixture.fire(engine, FlowView(lineage: l2)).isEmpty)
        #expect(Fixture.fire(engine, FlowView(lineage: nil)).isEmpty)
        engine.observe(.flow(role: "logout", stage: .forwarded, lineage: nil))
        #expect(Fixture.fire(engine, FlowView(lineage: nil)) == ["s/after-logout"])
    }

    @Test func marksCountForEveryLineage() {
        let engine = Fixture.engine(
            scenario("s", scope: .lineage, rules: [rule("r", when: RuleConditions(after: .mark("go")))]))
        engine.observe(.mark("go"))
        #expect(Fixture.fire(engine, FlowView(lineage: l1)) == ["s/r"])
        #expect(Fixture.fire(engine, FlowView(lineage: LineageID(9))) == ["s/r"], "a lineage born after the mark")
    }

    @Test func ruleEventsStayInTheirLineage() {
        let engine = Fixture.engine(
            scenario(
                "s", scope: .lineage,
                rules: [
                    rule("first", match: FlowMatch(path: Glob("/first"))),
                    rule("second", when: RuleConditions(after: .rule("first"))),
                ]))
        #expect(Fixture.fire(engine, FlowView(path: "/first", lineage: l1)) == ["s/first", "s/second"])
        #expect(Fixture.fire(engine, FlowView(lineage: l2)).isEmpty)
        #expect(Fixture.fire(engine, FlowView(lineage: l1)) == ["s/second"])
    }

    @Test func setStatePerLineage() throws {
        let engine = Fixture.engine(lineageScenario())
        try engine.setState("expired", scenario: "per-lineage", lineage: l2)
        #expect(Fixture.fire(engine, FlowView(role: "refresh", lineage: l2)) == ["per-lineage/refresh"])
        #expect(Fixture.fire(engine, FlowView(role: "refresh", lineage: l1)).isEmpty)
        #expect(engine.states()[0].state == "fresh")
    }
}
