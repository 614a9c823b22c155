import FaultlineCore
import Testing

@testable import FaultlineRules

/// The engine's rule index: it may only skip rules that cannot match, and it must keep the
/// engine's order (scenarios in rule-set order, rules in file order).
@Suite struct RuleIndexTests {
    private typealias Rule = FaultlineRules.Rule

    @Test func aPathGlobsLiteralFirstSegmentIsItsKey() {
        func segment(_ pattern: String) -> String? {
            GlobMatcher(Glob(pattern), mode: .path).literalFirstSegment
        }
        #expect(segment("/api/**") == "api")
        #expect(segment("/health") == "health")
        #expect(segment("/") == "")
        #expect(segment("/v1/*/items") == "v1")
        #expect(segment(#"/\*x/y"#) == "*x")  // an escaped star is a literal
        #expect(segment("/a*/x") == nil)
        #expect(segment("/api*") == nil)
        #expect(segment("**/token") == nil)
        #expect(segment("api/x") == nil)
        #expect(GlobMatcher(Glob("/api/x"), mode: .host).literalFirstSegment == nil)
    }

    @Test func aFlowsFirstSegmentIsWhatTheGlobsKeyIsComparedWith() {
        #expect(RuleIndex.firstSegment(of: "/api/v1/x") == "api")
        #expect(RuleIndex.firstSegment(of: "/health") == "health")
        #expect(RuleIndex.firstSegment(of: "/") == "")
        #expect(RuleIndex.firstSegment(of: "//x") == "")
        #expect(RuleIndex.firstSegment(of: "*") == nil)
    }

    @Test func candidatesComeOutInScenarioThenFileOrderWhateverTheirKeys() {
        let engine = Fixture.engine(
            Fixture.scenario(
                "a",
                rules: [
                    Fixture.rule("byMethod", match: FlowMatch(methods: ["POST"])),
                    Fixture.rule("byHost", match: FlowMatch(host: Glob("API.example.test"))),
                ]),
            Fixture.scenario(
                "b",
                rules: [
                    Fixture.rule("unkeyed", match: FlowMatch(headers: ["x-test": .exists(true)])),
                    Fixture.rule("bySegment", match: FlowMatch(path: Glob("/oauth/**"))),
                    Fixture.rule("otherHost", match: FlowMatch(host: Glob("other.test"))),
                ]))
        let flow = FlowView(
            method: "POST", host: "api.EXAMPLE.test.", path: "/oauth/token", headers: [("X-Test", "1")])
        #expect(Fixture.fire(engine, flow) == ["a/byMethod", "a/byHost", "b/unkeyed", "b/bySegment"])
    }

    @Test func aRuleListingNoMethodMatchesNothingAndARuleWithoutKeysIsAlwaysTested() {
        let engine = Fixture.engine(
            Fixture.scenario(
                "s",
                rules: [
                    Fixture.rule("none", match: FlowMatch(methods: [])),
                    Fixture.rule("all", match: FlowMatch(pathRegex: RegexPattern("."))),
                ]))
        #expect(Fixture.fire(engine, FlowView(method: "GET")) == ["s/all"])
    }

    @Test func aHotReloadRebuildsTheIndex() {
        let engine = Fixture.engine(
            Fixture.scenario("s", rules: [Fixture.rule("old", match: FlowMatch(host: Glob("old.test")))]))
        #expect(Fixture.fire(engine, FlowView(host: "old.test")) == ["s/old"])
        engine.replaceRuleSet(
            RuleSet(scenarios: [
                Fixture.scenario("s", rules: [Fixture.rule("new", match: FlowMatch(host: Glob("new.test")))])
            ]))
        #expect(Fixture.fire(engine, FlowView(host: "old.test")).isEmpty)
        #expect(Fixture.fire(engine, FlowView(host: "new.test")) == ["s/new"])
    }

    @Test func moreThanSixtyFourRulesSpanSeveralWords() {
        let rules = (0..<150).map { n in
            let match = n % 3 == 0 ? FlowMatch(path: Glob("/p/\(n % 7)")) : FlowMatch(methods: ["GET"])
            return Fixture.rule("r\(n)", match: match)
        }
        let engine = Fixture.engine(Fixture.scenario("s", rules: rules))
        let expected = (0..<150).filter { $0 % 3 != 0 || $0 % 7 == 2 }.map { "s/r\($0)" }
        #expect(Fixture.fire(engine, FlowView(method: "GET", path: "/p/2")) == expected)
    }

    /// Random rule sets and flows drawn from a small alphabet, so that keys collide, globs
    /// and literals overlap and case and trailing dots vary: the engine must fire exactly the rules
    /// that `FlowMatcher` matches when asked one by one, in order.
    @Test(arguments: 0..<8 as Range<UInt64>)
    func theIndexFiresExactlyWhatTestingEveryRuleFires(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let hosts = ["a.test", "A.test", "b.test", "*.test", "a.test.", "**", "a.*"]
        let paths = ["/x", "/x/**", "/y/*", "/*/z", "/x/z", "**", "/", "/y"]
        let methods = [["GET"], ["POST"], ["GET", "PUT"], []]
        let flowHosts = ["a.test", "A.TEST", "a.test.", "b.test", "c.test", "a.b"]
        let flowPaths = ["/x", "/x/z", "/y/q", "/y", "/", "*", "/q/z", "/xz"]
        let flowMethods = ["GET", "POST", "PUT", "DELETE"]

        func draw<T>(_ options: [T]) -> T? {
            let pick = Int.random(in: 0...options.count, using: &random)
            return pick == options.count ? nil : options[pick]
        }
        var scenarios: [Scenario] = []
        for s in 0..<3 {
            let rules = (0..<Int.random(in: 1...30, using: &random)).map { n in
                let match = FlowMatch(
                    methods: draw(methods), host: draw(hosts).map(Glob.init), path: draw(paths).map(Glob.init))
                return Fixture.rule("r\(n)", match: match)
            }
            scenarios.append(Fixture.scenario("s\(s)", rules: rules))
        }
        let engine = RuleEngine(ruleSet: RuleSet(scenarios: scenarios))
        for _ in 0..<200 {
            let flow = FlowView(
                method: draw(flowMethods) ?? "GET", host: draw(flowHosts) ?? "", path: draw(flowPaths) ?? "/x")
            let expected = scenarios.flatMap { scenario in
                scenario.rules.filter { Self.oracle($0.match, flow) }.map { "\(scenario.name)/\($0.name)" }
            }
            #expect(Fixture.fire(engine, flow) == expected, "flow \(flow.method) \(flow.host) \(flow.path)")
        }
    }

    /// The three fields tested one by one, without the engine.
    private static func oracle(_ match: FlowMatch, _ flow: FlowView) -> Bool {
        if let methods = match.methods, !methods.contains(flow.method) { return false }
        if let host = match.host, !GlobMatcher(host, mode: .host).matches(flow.host) { return false }
        if let path = match.path, !GlobMatcher(path, mode: .path).matches(flow.path) { return false }
        return true
    }
}
