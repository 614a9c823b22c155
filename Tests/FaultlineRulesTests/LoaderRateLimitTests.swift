import Testing

@testable import FaultlineRules

/// `rateLimit`: a 429 or 503 with `Retry-After`, in its short and long forms.
@Suite struct LoaderRateLimitTests {
    static func actions(_ action: String) throws -> [RuleAction] {
        let (scenario, errors) = RuleSetLoader.loadScenario(
            text: "{ rules: [{ name: 'busy', actions: [\(action)] }] }", file: "busy.json5")
        #expect(errors == [])
        return try #require(scenario?.rules.first?.actions)
    }

    @Test func aNumberIsA429WithThatManySeconds() throws {
        #expect(
            try Self.actions("{ rateLimit: 2 }") == [
                .respond(
                    SyntheticResponse(
                        status: 429,
                        headers: [
                            (name: "Retry-After", value: "2"), (name: "Content-Type", value: "application/json"),
                        ],
                        body: Array(#"{"error":"rate_limited","retry_after":2}"#.utf8)))
            ])
    }

    @Test func theObjectGivesTheStatusHeadersAndBody() throws {
        #expect(
            try Self.actions(
                #"{ rateLimit: { retryAfter: 30, status: 503, headers: { "X-Reason": "deploy" }, body: "down" } }"#)
                == [
                    .respond(
                        SyntheticResponse(
                            status: 503,
                            headers: [(name: "Retry-After", value: "30"), (name: "X-Reason", value: "deploy")],
                            body: Array("down".utf8)))
                ])
        #expect(
            try Self.actions("{ rateLimit: { retryAfter: 0, json: { slow: true } } }") == [
                .respond(
                    SyntheticResponse(
                        status: 429,
                        headers: [
                            (name: "Retry-After", value: "0"), (name: "Content-Type", value: "application/json"),
                        ],
                        body: Array(#"{"slow":true}"#.utf8)))
            ])
    }
}
