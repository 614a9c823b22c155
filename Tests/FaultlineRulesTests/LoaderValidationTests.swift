import FaultlineConfig
import Testing

@testable import FaultlineRules

/// One invalid scenario file: `⟨` marks where each error must point (see `Marked`).
struct ValidationCase: CustomTestStringConvertible, Sendable {
    let marked: String
    var messages: [String]
    /// Load with the README's auth profile next to the scenario.
    var withProfile = false

    init(_ marked: String, _ messages: String..., withProfile: Bool = false) {
        self.marked = marked
        self.messages = messages
        self.withProfile = withProfile
    }

    /// A file with one rule named `x` whose remaining keys are `body`.
    static func rule(_ body: String, _ messages: String..., withProfile: Bool = false) -> ValidationCase {
        var testCase = ValidationCase("{ rules: [{ name: 'x', \(body) }] }")
        testCase.messages.append(contentsOf: messages)
        testCase.withProfile = withProfile
        return testCase
    }

    var testDescription: String { marked }

    func run() {
        let marked = Marked(self.marked)
        let profile = withProfile ? ReadmeProfile.loaded : nil
        let (scenario, errors) = RuleSetLoader.loadScenario(text: marked.text, file: "v.json5", profile: profile)
        #expect(errors == marked.errors(file: "v.json5", messages))
        #expect(scenario == nil)
    }
}

@Suite struct LoaderValidationTests {
    static let topLevel: [ValidationCase] = [
        ValidationCase("⟨[]", "a scenario file must be an object, found an array"),
        ValidationCase("{ a: ⟨}", "expected a value for 'a', found '}'"),
        ValidationCase(
            "⟨{ ⟨rulez: [], ⟨Scope: 'global' }", "missing required key 'rules' in the scenario",
            "unknown key 'rulez' in the scenario (did you mean 'rules'?)",
            "unknown key 'Scope' in the scenario (did you mean 'scope'?)"),
        ValidationCase(#"{ scenario: ⟨"  ", rules: [] }"#, #"'scenario' must be a non-empty string, found "  ""#),
        ValidationCase("{ enabled: ⟨'yes', rules: [] }", #"'enabled' must be true or false, found "yes""#),
        ValidationCase("{ description: ⟨1, rules: [] }", "'description' must be a string, found 1"),
        ValidationCase(
            "{ scope: ⟨'lineag', rules: [] }",
            #"'scope' must be "global" or "lineage", found "lineag" (did you mean 'lineage'?)"#),
        ValidationCase(
            "{ scope: ⟨'lineage', rules: [] }",
            #"scope "lineage" needs an auth profile to follow credential lineages: add auth-profile.json5 to the rules folder"#
        ),
        ValidationCase("{ seed: ⟨-1, rules: [] }", "'seed' must be an integer from 0 to 9007199254740991, found -1"),
        ValidationCase("{ seed: ⟨1.5, rules: [] }", "'seed' must be an integer from 0 to 9007199254740991, found 1.5"),
        ValidationCase("{ rules: ⟨{} }", "'rules' must be an array, found an object"),
    ]

    static let states: [ValidationCase] = [
        ValidationCase("{ ⟨states: ['a'], rules: [] }", "'initialState' is required when 'states' is given"),
        ValidationCase(
            "{ states: ['a', ⟨'a'], initialState: 'a', rules: [] }", "state 'a' is listed twice in 'states'"),
        ValidationCase(
            "{ states: ⟨[], rules: [] }", "'states' must be a non-empty list of state names, found an array"),
        ValidationCase(
            "{ states: ['a', ⟨''], initialState: 'a', rules: [] }",
            #"each entry of 'states' must be a non-empty string, found """#),
        ValidationCase("{ initialState: ⟨3, rules: [] }", "'initialState' must be a string, found 3"),
        ValidationCase(
            """
            { states: ['started', 'loggedOut'], initialState: ⟨'begin',
              rules: [{ name: 'a', when: { state: ['started', ⟨'loggedout'] }, then: { state: ⟨'gone' } }] }
            """,
            "unknown state 'begin'; the declared states are 'started', 'loggedOut'",
            "unknown state 'loggedout' (did you mean 'loggedOut'?); the declared states are 'started', 'loggedOut'",
            "unknown state 'gone'; the declared states are 'started', 'loggedOut'"),
    ]

    static let rules: [ValidationCase] = [
        ValidationCase("{ rules: [⟨1] }", "rule 1 must be an object, found 1"),
        ValidationCase("{ rules: [{ name: 'a' }, ⟨{ actions: [] }] }", "missing required key 'name' in rule 2"),
        ValidationCase("{ rules: [{ name: ⟨'' }] }", #"'name' must be a non-empty string, found """#),
        ValidationCase(
            "{ rules: [{ name: ⟪'a' }, { name: ⟨'a' }] }",
            "rule name 'a' is already used at @0; names must be unique within a file"),
        ValidationCase.rule("⟨mathc: {}", "unknown key 'mathc' in rule 'x' (did you mean 'match'?)"),
        ValidationCase(
            "{ rules: [⟨{ ⟨nme: 'x' }] }", "missing required key 'name' in rule 1",
            "unknown key 'nme' in rule 1 (did you mean 'name'?)"),
        ValidationCase.rule("enabled: ⟨0", "'enabled' must be true or false, found 0"),
        ValidationCase.rule(
            "phase: ⟨'respons'", #"'phase' must be "request" or "response", found "respons" (did you mean 'response'?)"#
        ),
        ValidationCase.rule("actions: ⟨{}", "'actions' must be an array, found an object"),
    ]

    static let matches: [ValidationCase] = [
        ValidationCase.rule("match: ⟨'x'", #"'match' must be an object, found "x""#),
        ValidationCase.rule(
            "match: { ⟨methd: 'GET' }", "unknown key 'methd' in 'match' of rule 'x' (did you mean 'method'?)"),
        ValidationCase.rule(
            "match: { method: ⟨'GE T' }",
            #"'method' must be an HTTP method token such as "GET" (RFC 9110 §9), found "GE T""#),
        ValidationCase.rule(
            "match: { method: ['GET', ⟨'P/O'] }",
            #"'method' must be an HTTP method token such as "GET" (RFC 9110 §9), found "P/O""#),
        ValidationCase.rule(
            "match: { method: ⟨[] }", "'method' must be a string or a non-empty list of strings, found an array"),
        ValidationCase.rule(
            "match: { method: ⟨1 }", "'method' must be a string or a non-empty list of strings, found 1"),
        ValidationCase.rule(
            "match: { scheme: ⟨'HTTPS' }", #"'scheme' must be "http" or "https", found "HTTPS" (did you mean 'https'?)"#
        ),
        ValidationCase.rule("match: { port: ⟨0 }", "'port' must be an integer from 1 to 65535, found 0"),
        ValidationCase.rule("match: { port: ⟨70000 }", "'port' must be an integer from 1 to 65535, found 70000"),
        ValidationCase.rule("match: { port: ⟨'80' }", #"'port' must be an integer from 1 to 65535, found "80""#),
        ValidationCase.rule("match: { host: ⟨'' }", "'host' is not a valid glob: a glob must not be empty"),
        ValidationCase.rule(
            "match: { host: ⟨'a.***.test' }",
            "'host' is not a valid glob: '***' is not a glob operator: use '*' within a segment or '**' across segments"
        ),
        ValidationCase.rule(
            "match: { host: ⟨'api.example.test:8080' }",
            #"'host' must not include a port, found "api.example.test:8080"; use 'port'"#),
        ValidationCase.rule(
            "match: { host: ⟨'example.test/api' }",
            #"'host' is a host name pattern, found "example.test/api"; use 'path' for paths"#),
        ValidationCase.rule(
            "match: { host: ⟨'[ab.test' }", "'host' is not a valid glob: the '[' at character 1 has no closing ']'"),
        ValidationCase.rule(
            "match: { path: ⟨'/a/[bc' }", "'path' is not a valid glob: the '[' at character 4 has no closing ']'"),
        ValidationCase.rule(
            "match: { path: ⟨'/x/[]' }", "'path' is not a valid glob: the character class at character 4 is empty"),
        ValidationCase.rule(
            "match: { path: ⟨'/x/[!]' }", "'path' is not a valid glob: the character class at character 4 is empty"),
        ValidationCase.rule(
            "match: { path: ⟨'api/*' }",
            #"'path' must be a glob starting with '/' (the path without the query), found "api/*""#),
        ValidationCase.rule(
            "match: { pathRegex: ⟨'a(b' }", "'pathRegex' is not a valid regular expression: expected ')'"),
        ValidationCase.rule(
            "match: { headers: { ⟨'Bad Name': 'x' } }",
            "'Bad Name' is not a valid header name (RFC 9110 §5.6.2: a token)"),
        ValidationCase.rule(
            "match: { headers: { ⟪Authorization: 'a', ⟨authorization: 'b' } }",
            "header 'authorization' is already tested as 'Authorization' at @0 (header names ignore case)"),
        ValidationCase.rule(
            "match: { headers: { A: ⟨{} } }",
            "the test for header 'A' needs one of 'equals', 'exists', 'regex' or 'contains'"),
        ValidationCase.rule(
            "match: { headers: { A: { equals: 'x', ⟨regex: 'y' } } }",
            "the test for header 'A' takes exactly one of 'equals', 'exists', 'regex' or 'contains'; found 'equals' and 'regex'"
        ),
        ValidationCase.rule(
            "match: { query: { q: { ⟨contains: 'x' } } }", "unknown key 'contains' in the test for query parameter 'q'"),
        ValidationCase.rule(
            "match: { query: { q: { ⟨equal: 'x' } } }",
            "unknown key 'equal' in the test for query parameter 'q' (did you mean 'equals'?)"),
        ValidationCase.rule(
            "match: { headers: { A: { regex: ⟨'[z-a]' } } }",
            "'regex' is not a valid regular expression: character 'z' must compare less than or equal to 'a'"),
        ValidationCase.rule(
            "match: { cookies: { s: ⟨1 } }",
            "cookie 's' must be a string or an object with one of 'equals', 'exists' or 'regex', found 1"),
        ValidationCase.rule(
            "match: { cookies: { ⟨'a;b': 'x' } }", "'a;b' is not a valid cookie name (RFC 9110 §5.6.2: a token)"),
        ValidationCase.rule(
            "match: { headers: { A: { exists: ⟨'yes' } } }", #"'exists' must be true or false, found "yes""#),
        ValidationCase.rule(
            "match: { headers: { A: { contains: ⟨'' } } }", #"'contains' must be a non-empty string, found """#),
        ValidationCase.rule("match: { query: ⟨[] }", "'query' must be an object, found an array"),
        ValidationCase.rule(
            "match: { body: { ⟨jsn: {} } }", "unknown key 'jsn' in 'body' of 'match' of rule 'x' (did you mean 'json'?)"
        ),
        ValidationCase.rule(
            "match: { body: { json: { ⟨'a/b': 1 } } }",
            "'a/b' is not a valid JSON pointer: a JSON pointer must be empty or start with '/'"),
        ValidationCase.rule(
            "match: { body: { json: { ⟨'/a~2': 1 } } }",
            "'/a~2' is not a valid JSON pointer: '~' must be followed by '0' or '1' in a JSON pointer"),
        ValidationCase.rule("match: { body: { json: { '/x': [1, ⟨NaN] } } }", "JSON cannot hold Infinity or NaN"),
        ValidationCase.rule(
            "match: { body: { form: { f: { ⟨equals: 'x' } } } }", "unknown key 'equals' in the test for form field 'f'"),
        ValidationCase.rule("match: { body: { contains: ⟨'' } }", #"'contains' must be a non-empty string, found """#),
        ValidationCase.rule("match: { body: ⟨true }", "'body' must be an object, found true"),
        ValidationCase.rule(
            "match: { role: ⟨'login' }",
            "role 'login' needs an auth profile: add auth-profile.json5 to the rules folder"),
        ValidationCase.rule(
            "match: { role: ⟨'callback' }",
            "unknown role 'callback'; without an auth profile every request is 'business'"),
        ValidationCase.rule(
            "match: { role: ⟨'busines' }",
            "unknown role 'busines' (did you mean 'business'?); without an auth profile every request is 'business'"),
        ValidationCase.rule(
            "match: { role: ⟨'calback' }",
            "unknown role 'calback' (did you mean 'callback'?); the known roles are 'login', 'refresh', 'logout', 'revoke', 'callback', 'business'",
            withProfile: true),
        ValidationCase.rule(
            "match: { status: ⟨99 }",
            #"'status' must be a status code from 100 to 599, a list of them, or a class such as "5xx", found 99"#),
        ValidationCase.rule(
            "match: { status: ⟨'6xx' }",
            #"'status' must be a status code from 100 to 599, a list of them, or a class such as "5xx", found "6xx""#),
        ValidationCase.rule(
            "match: { status: ⟨[] }",
            #"'status' must be a status code from 100 to 599, a list of them, or a class such as "5xx", found an array"#
        ),
        ValidationCase.rule(
            "match: { status: [200, ⟨'x'] }", #"each entry of 'status' must be an integer from 100 to 599, found "x""#),
    ]

    static let conditions: [ValidationCase] = [
        ValidationCase.rule("when: { times: ⟨\"3\" }", #"'times' must be a positive integer, found "3""#),
        ValidationCase.rule("when: { times: ⟨0 }", "'times' must be a positive integer, found 0"),
        ValidationCase.rule("when: { nth: ⟨0 }", "'nth' must be a positive integer, found 0"),
        ValidationCase.rule("when: { nth: [1, ⟨0] }", "each entry of 'nth' must be a positive integer, found 0"),
        ValidationCase.rule(
            "when: { nth: ⟨[] }", "'nth' must be a positive integer or a non-empty list of them, found an array"),
        ValidationCase.rule("when: { probability: ⟨1.5 }", "'probability' must be a number from 0 to 1, found 1.5"),
        ValidationCase.rule("when: { probability: ⟨-0.1 }", "'probability' must be a number from 0 to 1, found -0.1"),
        ValidationCase.rule("when: { ⟨stat: 'a' }", "unknown key 'stat' in 'when' of rule 'x' (did you mean 'state'?)"),
        ValidationCase.rule(
            "when: { state: ⟨[] }", "'state' must be a string or a non-empty list of strings, found an array"),
        ValidationCase.rule("when: ⟨[] ", "'when' must be an object, found an array"),
        ValidationCase.rule("then: ⟨{}", "missing required key 'state' in 'then' of rule 'x'"),
        ValidationCase.rule(
            "then: { state: 's', ⟨stat: 't' }", "unknown key 'stat' in 'then' of rule 'x' (did you mean 'state'?)"),
        ValidationCase.rule(
            "when: { after: ⟨'login.forwared' }",
            "unknown stage 'forwared' in event 'login.forwared' (did you mean 'forwarded'?); stages are 'received', 'forwarded', 'responded', 'delivered'",
            withProfile: true),
        ValidationCase.rule(
            "when: { after: ⟨'rules:x' }",
            "unknown event kind 'rules' in 'rules:x' (did you mean 'rule'?); events are '<role>.<stage>', 'rule:<name>', 'delivered:<name>' or 'mark:<label>'"
        ),
        ValidationCase.rule("when: { before: ⟨'delivered:zzz' }", "unknown rule 'zzz' in this scenario"),
        ValidationCase.rule(
            "when: { after: ⟨'delivered:' }", "event 'delivered:' needs a rule name after 'delivered:'"),
        ValidationCase.rule("when: { before: ⟨'rule:zzz' }", "unknown rule 'zzz' in this scenario"),
        ValidationCase(
            "{ rules: [{ name: 'expire' }, { name: 'b', when: { after: ⟨'rule:expir' } }] }",
            "unknown rule 'expir' in this scenario (did you mean 'expire'?)"),
        ValidationCase.rule("when: { after: ⟨'mark:' }", "event 'mark:' needs a label after 'mark:'"),
        ValidationCase.rule("when: { after: ⟨'rule:' }", "event 'rule:' needs a rule name after 'rule:'"),
        ValidationCase.rule("when: { after: ⟨'' }", #"'after' must be a non-empty string, found """#),
        ValidationCase.rule(
            "when: { after: ⟨'calback.received' }",
            "unknown role 'calback' (did you mean 'callback'?); the known roles are 'login', 'refresh', 'logout', 'revoke', 'callback', 'business' (in event 'calback.received')",
            withProfile: true),
        ValidationCase.rule(
            "when: { before: ⟨'logout' }",
            "role 'logout' needs an auth profile: add auth-profile.json5 to the rules folder (in event 'logout')"),
    ]

    @Test(arguments: topLevel) func topLevelKeys(_ testCase: ValidationCase) { testCase.run() }
    @Test(arguments: states) func stateNames(_ testCase: ValidationCase) { testCase.run() }
    @Test(arguments: rules) func ruleKeys(_ testCase: ValidationCase) { testCase.run() }
    @Test(arguments: matches) func matchKeys(_ testCase: ValidationCase) { testCase.run() }
    @Test(arguments: conditions) func whenAndThen(_ testCase: ValidationCase) { testCase.run() }

    @Test func validEventReferencesAndStatusForms() throws {
        let text = """
            { rules: [
              { name: 'a', when: { after: 'callback', before: 'business.received' } },
              { name: 'b', match: { status: [401, 403] }, when: { after: 'rule:a', before: 'mark:done' } },
              { name: 'c', match: { status: 204 } },
              { name: 'd', match: { status: '4XX' } },
            ] }
            """
        let (scenario, errors) = RuleSetLoader.loadScenario(text: text, file: "v.json5", profile: ReadmeProfile.loaded)
        #expect(errors == [])
        let rules = try #require(scenario?.rules)
        #expect(rules[0].conditions.after == .role("callback", .forwarded))
        #expect(rules[0].conditions.before == .role("business", .received))
        #expect(rules[1].conditions.after == .rule("a"))
        #expect(rules[1].match.status == .codes([401, 403]))
        #expect(rules[2].match.status == .codes([204]))
        #expect(rules[3].match.status == .statusClass(4))
        #expect(rules.map(\.phase) == [.request, .response, .response, .response])
    }

    @Test(arguments: [FlowRole.logout, FlowRole.revoke]) func aProfileWithoutARoleRefusesThatRole(_ role: String) {
        var profile = ReadmeProfile.loaded
        if role == FlowRole.logout { profile.logout = [] } else { profile.revoke = [] }
        let marked = Marked("{ rules: [{ name: 'x', match: { role: ⟨'\(role)' } }] }")
        let (_, errors) = RuleSetLoader.loadScenario(text: marked.text, file: "v.json5", profile: profile)
        #expect(
            errors
                == marked.errors(
                    file: "v.json5", ["role '\(role)' is not defined in the auth profile (auth-profile.json5)"]))
    }

    @Test func everyErrorOfAFileIsReportedInPositionOrder() {
        let marked = Marked(
            """
            { ⟨scop: 'global',
              rules: [
                { name: 'a', ⟨mathc: {}, when: { times: ⟨'3', nth: ⟨0 } },
                { name: 'b', actions: [{ ⟨respnd: {} }, { delay: ⟨-1 }] },
              ],
              seed: ⟨'x',
            }
            """)
        let (_, errors) = RuleSetLoader.loadScenario(text: marked.text, file: "v.json5")
        #expect(
            errors
                == marked.errors(
                    file: "v.json5",
                    [
                        "unknown key 'scop' in the scenario (did you mean 'scope'?)",
                        "unknown key 'mathc' in rule 'a' (did you mean 'match'?)",
                        #"'times' must be a positive integer, found "3""#,
                        "'nth' must be a positive integer, found 0",
                        "unknown action 'respnd' (did you mean 'respond'?)",
                        "'delay' must be a number of seconds from 0 to 1000000, found -1",
                        #"'seed' must be an integer from 0 to 9007199254740991, found "x""#,
                    ]))
    }
}
