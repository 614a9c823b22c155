import FaultlineFlow
import FaultlineRules
import Testing

/// How the plans fold the request-phase `rewrite` and `route` of the rules that fired.
@Suite struct FlowPlanTests {
    static func fired(_ rule: String, _ actions: [RuleAction], phase: RulePhase = .request) -> FiredRule {
        FiredRule(
            id: RuleID(scenario: "s", rule: rule), file: "s.json5", phase: phase, actions: actions, transition: nil,
            hit: 1)
    }

    @Test func requestRewritesAddUpInFiringOrderAndTheFirstRouteWins() {
        let first = RequestRewrite(path: "/v2/flags")
        let second = RequestRewrite(setHeaders: [(name: "X-Env", value: "test")])
        let stub = RouteTarget(scheme: "http", host: "127.0.0.1", port: 8081, pathPrefix: "")
        let other = RouteTarget(host: "other.test")
        let plan = RequestPlan([
            Self.fired("a", [.rewriteRequest(first), .route(stub), .delay(.seconds(1))]),
            Self.fired("b", [.route(other), .rewriteRequest(second)]),
        ])
        #expect(plan.rewrites == [first, second])
        #expect(plan.route == stub)
        #expect(plan.delay == .seconds(1))
        #expect(!plan.isEmpty)
        #expect(RequestPlan([Self.fired("c", [.route(other)])]).route == other)
        #expect(RequestPlan([Self.fired("d", [.delay(.zero)])]).isEmpty, "no rewrite and no route: nothing changes")
    }

    @Test func aResponsePlanIgnoresRequestActions() {
        let plan = ResponsePlan([
            Self.fired(
                "a", [.rewriteRequest(RequestRewrite(method: "POST")), .route(RouteTarget(port: 1))], phase: .response)
        ])
        #expect(plan.isEmpty)
    }
}
