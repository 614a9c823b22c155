import Testing

@testable import FaultlineRules

/// `when` conditions, `then` transitions and how several rules interact on one flow.
@Suite struct EngineConditionTests {
    @Test func timesCapsFiresAndCountsHits() {
        let engine = Fixture.engine(scenario("s", rules: [rule("r", when: RuleConditions(times: 3))]))
        let hits = (1...5).map { _ in engine.evaluate(FlowView(), phase: .request).map(\.hit) }
        #expect(hits == [[1], [2], [3], [], []])
        #expect(engine.rules().first?.hits == 3)
    }

    @Test func ruleWithoutConditionsFiresEveryTime() {
        let engine = Fixture.engine(scenario("s", rules: [rule("r")]))
        #expect((1...4).flatMap { _ in engine.evaluate(FlowView(), phase: .request).map(\.hit) } == [1, 2, 3, 4])
    }

    @Test func firedRuleCarriesIdentityFileActionsAndPhase() throws {
        let engine = Fixture.engine(
            scenario("token-race", rules: [rule("expire", actions: [.respond(SyntheticResponse(status: 401))])]))
        let fired = try #require(engine.evaluate(FlowView(), phase: .request).first)
        #expect(fired.id == RuleID(scenario: "token-race", rule: "expire"))
        #expect(fired.id.description == "token-race/expire")
        #expect(fired.file == "token-race.json5")
        #expect(fired.phase == .request)
        #expect(fired.actions == [.respond(SyntheticResponse(status: 401))])
        #expect(fired.transition == nil)
    }

    @Test func nthFiresOnlyOnTheListedMatches() {
        let engine = Fixture.engine(scenario("s", rules: [rule("r", when: RuleConditions(nth: [2, 4]))]))
        let fires = (1...6).map { _ in !Fixture.fire(engine).isEmpty }
        #expect(fires == [false, true, false, true, false, false])
    }

    @Test func nthIsCountedBeforeTimes() {
        let engine = Fixture.engine(scenario("s", rules: [rule("r", when: RuleConditions(times: 2, nth: [1, 3, 5]))]))
        let fires = (1...6).map { _ in !Fixture.fire(engine).isEmpty }
        #expect(fires == [true, false, true, false, false, false])
        #expect(engine.rules().map(\.matches) == [6], "flows after times is spent still count")
        #expect(engine.rules().map(\.hits) == [2])
    }

    @Test func matchesCountOnlyFlowsPastTheGates() {
        let engine = Fixture.engine(
            scenario(
                "s", rules: [rule("r", match: FlowMatch(path: Glob("/a")), when: RuleConditions(after: .mark("go")))]))
        _ = Fixture.fire(engine, FlowView(path: "/a"))
        engine.observe(.mark("go"))
        _ = Fixture.fire(engine, FlowView(path: "/b"))
        _ = Fixture.fire(engine, FlowView(path: "/a"))
        #expect(engine.rules().map(\.matches) == [1])
    }

    @Test func nthCountsOnlyFlowsThatMatch() {
        let match = FlowMatch(path: Glob("/a"))
        let engine = Fixture.engine(scenario("s", rules: [rule("r", match: match, when: RuleConditions(nth: [2]))]))
        #expect(Fixture.fire(engine, FlowView(path: "/a")).isEmpty)
        #expect(Fixture.fire(engine, FlowView(path: "/b")).isEmpty)
        #expect(Fixture.fire(engine, FlowView(path: "/a")) == ["s/r"])
    }

    @Test func nthDoesNotCountFlowsTurnedAwayByState() {
        let engine = Fixture.engine(
            scenario(
                "s", states: ["a", "b"], initialState: "a",
                rules: [rule("r", when: RuleConditions(states: ["b"], nth: [1]))]))
        #expect(Fixture.fire(engine).isEmpty)
        #expect(Fixture.fire(engine).isEmpty)
        #expect(throws: Never.self) { try engine.setState("b", scenario: "s") }
        #expect(Fixture.fire(engine) == ["s/r"], "the first match in state b is the 1st")
    }

    @Test func stateConditionAndTransition() throws {
        let engine = Fixture.engine(
            scenario(
                "s", states: ["started", "loggedOut"], initialState: "started",
                rules: [
                    rule(
                        "logout", match: FlowMatch(role: "logout"), when: RuleConditions(states: ["started"]),
                        then: "loggedOut"),
                    rule("after", when: RuleConditions(states: ["loggedOut"])),
                ]))
        #expect(Fixture.fire(engine).isEmpty)
        let fired = engine.evaluate(FlowView(role: "logout"), phase: .request)
        #expect(fired.map(\.id.rule) == ["logout", "after"], "the later rule sees the new state in the same call")
        #expect(fired.first?.transition == StateTransition(from: "started", to: "loggedOut"))
        #expect(Fixture.state(engine, "s") == "loggedOut")
        #expect(Fixture.fire(engine) == ["s/after"])
    }

    @Test func transitionsChainAcrossRulesInOneEvaluation() {
        let engine = Fixture.engine(
            scenario(
                "chain", states: ["a", "b", "c", "d"],
                rules: [
                    rule("one", when: RuleConditions(states: ["a"]), then: "b"),
                    rule("two", when: RuleConditions(states: ["b"]), then: "c"),
                    rule("three", when: RuleConditions(states: ["c"]), then: "d"),
                    rule("back", when: RuleConditions(states: ["a"]), then: "a"),
                ]))
        let fired = engine.evaluate(FlowView(), phase: .request)
        #expect(fired.map(\.id.rule) == ["one", "two", "three"])
        #expect(
            fired.map(\.transition) == [
                StateTransition(from: "a", to: "b"), StateTransition(from: "b", to: "c"),
                StateTransition(from: "c", to: "d"),
            ])
        #expect(Fixture.state(engine, "chain") == "d")
        #expect(Fixture.fire(engine).isEmpty)
    }

    @Test func selfTransitionIsReported() {
        let engine = Fixture.engine(scenario("s", rules: [rule("r", then: RuleEngine.defaultInitialState)]))
        #expect(
            engine.evaluate(FlowView(), phase: .request).first?.transition
                == StateTransition(from: "started", to: "started"))
    }

    @Test func initialStateDefaults() {
        let engine = Fixture.engine(
            scenario("declared", states: ["x", "y"], rules: []),
            scenario("initial", states: ["x", "y"], initialState: "y", rules: []),
            scenario("free", rules: []))
        #expect(engine.states().map(\.state) == ["x", "y", "started"])
    }

    @Test func afterWaitsForARoleEventAtItsStage() {
        let engine = Fixture.engine(
            scenario("s", rules: [rule("late", when: RuleConditions(after: .role("logout", .forwarded)))]))
        #expect(Fixture.fire(engine).isEmpty)
        engine.observe(.flow(role: "logout", stage: .received, lineage: nil))
        #expect(Fixture.fire(engine).isEmpty, "received is not forwarded")
        engine.observe(.flow(role: "login", stage: .forwarded, lineage: nil))
        #expect(Fixture.fire(engine).isEmpty, "another role")
        engine.observe(.flow(role: "logout", stage: .forwarded, lineage: nil))
        #expect(Fixture.fire(engine) == ["s/late"])
        #expect(Fixture.fire(engine) == ["s/late"])
    }

    /// `delivered:<rule>` counts once a flow that rule fired on was delivered, and only for a
    /// rule of the same scenario.
    @Test func afterWaitsForTheDeliveryOfAFlowARuleFiredOn() {
        let engine = Fixture.engine(
            scenario("s", rules: [rule("late", when: RuleConditions(after: .ruleDelivered("marker")))]),
            scenario("t", rules: []))
        #expect(engine.observesFlowEvents)
        #expect(Fixture.fire(engine).isEmpty)
        engine.observe(.ruleDelivered(RuleID(scenario: "t", rule: "marker"), lineage: nil))
        #expect(Fixture.fire(engine).isEmpty, "a rule of another scenario")
        engine.observe(.ruleDelivered(RuleID(scenario: "s", rule: "marker"), lineage: nil))
        #expect(Fixture.fire(engine) == ["s/late"])
    }

    @Test func beforeStopsOnceTheEventIsSeen() {
        let engine = Fixture.engine(
            scenario("s", rules: [rule("early", when: RuleConditions(before: .role("refresh", .responded)))]))
        #expect(Fixture.fire(engine) == ["s/early"])
        engine.observe(.flow(role: "refresh", stage: .delivered, lineage: nil))
        #expect(Fixture.fire(engine) == ["s/early"])
        engine.observe(.flow(role: "refresh", stage: .responded, lineage: .init(3)))
        #expect(Fixture.fire(engine).isEmpty, "a global scenario sees every lineage's events")
    }

    @Test func ruleReferencesSeeFiresOfEarlierRulesInTheSameEvaluation() {
        let engine = Fixture.engine(
            scenario(
                "s",
                rules: [
                    rule("before-hold", when: RuleConditions(after: .rule("hold"))),
                    rule("hold", when: RuleConditions(times: 1)),
                    rule("after-hold", when: RuleConditions(after: .rule("hold"))),
                    rule("until-hold", when: RuleConditions(before: .rule("hold"))),
                ]))
        #expect(Fixture.fire(engine) == ["s/hold", "s/after-hold"])
        #expect(Fixture.fire(engine) == ["s/before-hold", "s/after-hold"])
    }

    @Test func ruleReferencesStayWithinTheirScenario() {
        let engine = Fixture.engine(
            scenario("a", rules: [rule("x")]),
            scenario("b", rules: [rule("y", when: RuleConditions(after: .rule("x")))]))
        #expect(Fixture.fire(engine) == ["a/x"])
        #expect(Fixture.fire(engine) == ["a/x"])
    }

    @Test func markReferences() {
        let engine = Fixture.engine(
            scenario(
                "s",
                rules: [
                    rule("go", when: RuleConditions(after: .mark("go"))),
                    rule("stop", when: RuleConditions(before: .mark("stop"))),
                ]))
        #expect(Fixture.fire(engine) == ["s/stop"])
        engine.observe(.mark("go"))
        #expect(Fixture.fire(engine) == ["s/go", "s/stop"])
        engine.observe(.mark("stop"))
        engine.observe(.mark("other"))
        #expect(Fixture.fire(engine) == ["s/go"])
    }

    @Test func gatesComposeWithTimes() {
        let engine = Fixture.engine(
            scenario(
                "s", states: ["a", "b"],
                rules: [rule("r", when: RuleConditions(states: ["b"], times: 1, after: .mark("m")), then: "a")]))
        try? engine.setState("b", scenario: "s")
        #expect(Fixture.fire(engine).isEmpty, "no mark yet")
        engine.observe(.mark("m"))
        #expect(Fixture.fire(engine) == ["s/r"])
        #expect(Fixture.state(engine, "s") == "a")
        try? engine.setState("b", scenario: "s")
        #expect(Fixture.fire(engine).isEmpty, "times: 1 spent")
    }

    @Test func phasesAreEvaluatedSeparately() {
        let engine = Fixture.engine(
            scenario(
                "s",
                rules: [
                    rule("req"),
                    rule("res", phase: .response, match: FlowMatch(status: .codes([200]))),
                ]))
        #expect(Fixture.fire(engine, FlowView(status: 200), phase: .request) == ["s/req"])
        #expect(Fixture.fire(engine, FlowView(status: 200), phase: .response) == ["s/res"])
        #expect(Fixture.fire(engine, FlowView(status: 500), phase: .response).isEmpty)
    }

    @Test func scenariosAndRulesFireInOrder() {
        let engine = Fixture.engine(
            scenario("b", rules: [rule("2"), rule("1")]),
            scenario("a", rules: [rule("3")]))
        #expect(Fixture.fire(engine) == ["b/2", "b/1", "a/3"])
    }

    @Test func disabledRulesAndScenariosDoNotFire() {
        var off = rule("off")
        off.enabled = false
        let engine = Fixture.engine(
            scenario("s", rules: [off, rule("on")]),
            scenario("quiet", enabled: false, rules: [rule("x")]))
        #expect(Fixture.fire(engine) == ["s/on"])
    }
}
