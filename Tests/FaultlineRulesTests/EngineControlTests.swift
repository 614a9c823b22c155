import Testing

@testable import FaultlineRules

/// Hot reload and the control surface.
@Suite struct EngineControlTests {
    private func counting(_ name: String, seed: UInt64 = 0) -> Scenario {
        scenario(
            name, states: ["a", "b"], seed: seed,
            rules: [
                rule("to-b", when: RuleConditions(states: ["a"]), then: "b"),
                rule("any", when: RuleConditions(times: 3)),
            ])
    }

    @Test func reloadKeepsUnchangedScenariosAndResetsChangedOnes() throws {
        let engine = Fixture.engine(counting("kept"), counting("changed"), counting("removed"))
        _ = engine.evaluate(FlowView(), phase: .request)
        _ = engine.evaluate(FlowView(), phase: .request)
        try engine.setEnabled(false, rule: RuleID(scenario: "kept", rule: "any"))
        engine.observe(.mark("m"))

        engine.replaceRuleSet(RuleSet(scenarios: [counting("changed", seed: 1), counting("new"), counting("kept")]))

        #expect(engine.ruleSet.scenarios.map(\.name) == ["changed", "new", "kept"])
        #expect(engine.states().map(\.state) == ["a", "a", "b"])
        #expect(engine.rules().map(\.hits) == [0, 0, 0, 0, 1, 2])
        #expect(engine.rules().map(\.enabled) == [true, true, true, true, true, false], "switches kept with state")
        let fired = engine.evaluate(FlowView(), phase: .request).map(\.id.description)
        #expect(fired == ["changed/to-b", "changed/any", "new/to-b", "new/any"])
    }

    @Test func reloadKeepsSeenEventsOfUnchangedScenarios() {
        let waiting = scenario("w", rules: [rule("r", when: RuleConditions(after: .mark("go")))])
        let engine = Fixture.engine(waiting)
        engine.observe(.mark("go"))
        engine.replaceRuleSet(RuleSet(scenarios: [waiting]))
        #expect(Fixture.fire(engine) == ["w/r"])
        var edited = waiting
        edited.description = "now with a description"
        engine.replaceRuleSet(RuleSet(scenarios: [edited]))
        #expect(Fixture.fire(engine).isEmpty, "a changed scenario starts fresh, marks included")
    }

    @Test func rulesListsSwitchesAndHits() throws {
        let engine = Fixture.engine(
            scenario("s", rules: [rule("a"), rule("b", phase: .response)]), scenario("t", rules: [rule("c")]))
        _ = engine.evaluate(FlowView(), phase: .request)
        try engine.setEnabled(false, scenario: "t")
        let listed = engine.rules()
        #expect(listed.map(\.id.description) == ["s/a", "s/b", "t/c"])
        #expect(listed.map(\.phase) == [.request, .response, .request])
        #expect(listed.map(\.file) == ["s.json5", "s.json5", "t.json5"])
        #expect(listed.map(\.hits) == [1, 0, 1])
        #expect(listed.map(\.enabled) == [true, true, false])
        #expect(listed[2].ruleEnabled && !listed[2].scenarioEnabled)
        #expect(Fixture.fire(engine) == ["s/a"])
        try engine.setEnabled(true, scenario: "t")
        try engine.setEnabled(false, rule: RuleID(scenario: "s", rule: "a"))
        #expect(Fixture.fire(engine) == ["t/c"])
    }

    @Test func unknownNamesAreErrorsWithSuggestions() {
        let engine = Fixture.engine(scenario("token-race", rules: [rule("expire-first-three")]))
        #expect {
            try engine.setEnabled(false, rule: RuleID(scenario: "token-race", rule: "expire-first-tree"))
        } throws: { error in
            let error = error as? RuleEngineError
            return error?.code == .unknownRule && error?.suggestion == "token-race/expire-first-three"
                && error?.description
                    == "unknown rule 'token-race/expire-first-tree' (did you mean 'token-race/expire-first-three'?)"
        }
        #expect {
            try engine.setEnabled(false, scenario: "token-rcae")
        } throws: { error in
            (error as? RuleEngineError)?.code == .unknownScenario
                && (error as? RuleEngineError)?.suggestion == "token-race"
        }
        #expect {
            try engine.setEnabled(false, scenario: "something-else-entirely")
        } throws: { error in
            (error as? RuleEngineError)?.suggestion == nil
        }
        #expect(throws: RuleEngineError.self) { try engine.resetState(scenario: "nope") }
    }

    @Test func setStateChecksDeclaredStatesAndScope() throws {
        let engine = Fixture.engine(
            scenario("declared", states: ["started", "loggedOut"], rules: []), scenario("free", rules: []))
        try engine.setState("loggedOut", scenario: "declared")
        try engine.setState("anything", scenario: "free")
        #expect(engine.states().map(\.state) == ["loggedOut", "anything"])
        #expect {
            try engine.setState("loggedout", scenario: "declared")
        } throws: { error in
            let error = error as? RuleEngineError
            return error?.code == .unknownState && error?.suggestion == "loggedOut"
                && error?.description
                    == "'loggedout' is not a declared state of scenario 'declared' (did you mean 'loggedOut'?)"
        }
        #expect {
            try engine.setState("started", scenario: "declared", lineage: LineageID(1))
        } throws: { error in
            (error as? RuleEngineError)?.code == .notLineageScoped
        }
    }

    @Test func resetStateClearsStateCountersAndSeenEvents() throws {
        let engine = Fixture.engine(
            scenario(
                "s", states: ["a", "b"],
                rules: [rule("once", when: RuleConditions(times: 1, after: .mark("go")), then: "b")]),
            scenario("other", states: ["x", "y"], rules: []))
        engine.observe(.mark("go"))
        try engine.setState("y", scenario: "other")
        #expect(Fixture.fire(engine) == ["s/once"])
        try engine.resetState(scenario: "s")
        #expect(engine.states().map(\.state) == ["a", "y"])
        #expect(engine.rules()[0].hits == 0)
        #expect(Fixture.fire(engine).isEmpty, "the mark was forgotten")
        engine.observe(.mark("go"))
        #expect(Fixture.fire(engine) == ["s/once"], "times counts again from zero")
        try engine.resetState()
        #expect(engine.states().map(\.state) == ["a", "x"])
    }

    @Test func needsRequestBodyFollowsEnabledBodyRules() throws {
        let bodyMatch = FlowMatch(body: BodyMatch(contains: "x"))
        let engine = Fixture.engine(
            scenario("s", rules: [rule("plain"), rule("body", match: bodyMatch)]),
            scenario("r", rules: [rule("late", phase: .response, match: bodyMatch)]))
        #expect(engine.needsRequestBody)
        #expect(engine.needsRequestBodyAtResponse)
        try engine.setEnabled(false, rule: RuleID(scenario: "s", rule: "body"))
        #expect(!engine.needsRequestBody)
        try engine.setEnabled(false, scenario: "r")
        #expect(!engine.needsRequestBodyAtResponse)
        #expect(!Fixture.engine().needsRequestBody)
    }

    @Test func identifiersParseAndPrint() {
        #expect(RuleID("token-race/expire") == RuleID(scenario: "token-race", rule: "expire"))
        #expect(RuleID("a/b/c") == RuleID(scenario: "a", rule: "b/c"))
        #expect(RuleID("nope") == nil)
        #expect(RuleID("/x") == nil)
        #expect(LineageID("L12") == LineageID(12))
        #expect(LineageID(3).description == "L3")
        #expect(LineageID("L0") == nil)
        #expect(LineageID("X1") == nil)
        #expect(LineageID(2) < LineageID(10))
    }
}
