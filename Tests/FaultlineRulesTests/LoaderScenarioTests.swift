import FaultlineConfig
import FaultlineCore
import Testing

@testable import FaultlineRules

@Suite struct LoaderScenarioTests {
    static let everything = """
        // Every key the format has.
        {
          $schema: "./faultline-rules.schema.json",
          scenario: "everything",
          description: "all the keys",
          enabled: false,
          states: ["started", "loggedOut"],
          initialState: "started",
          scope: "lineage",
          seed: 42,
          rules: [
            {
              name: "expire",
              match: {
                method: ["GET", "POST"], scheme: "https", host: "*.example.test", port: 8443,
                path: "/api/**", pathRegex: "^/api/v[0-9]+/",
                query: { page: "1", debug: { exists: false }, id: { regex: "^[0-9]+$" } },
                headers: { Authorization: { contains: "Bearer" }, "X-Trace": { equals: "t" } },
                cookies: { session: { exists: true } },
                body: {
                  json: { "/user/id": 7, "/flags": { exists: true }, "/tags": ["a", { b: null }] },
                  form: { grant_type: "password", scope: { exists: false } },
                  contains: "needle",
                },
                role: "callback",
              },
              when: { state: ["started"], times: 3, nth: [1, 3], probability: 0.5, after: "login.responded", before: "mark:stop" },
              then: { state: "loggedOut" },
              actions: [
                { respond: { status: 401, reason: "Nope",
                             headers: { "WWW-Authenticate": "Bearer", "Set-Cookie": ["a=1", "b=2"] },
                             json: { error: "invalid_token", n: 1 } } },
                { delay: 0.25 },
                { hold: { name: "h", release: { on: "rule:rewrite-it" }, timeout: 2, onTimeout: { status: 504 } } },
                { throttle: 1024 },
              ],
            },
            {
              name: "rewrite-it",
              enabled: false,
              match: { status: "5xx", responseHeaders: { "content-type": { regex: "json" } } },
              actions: [
                { rewrite: { status: 200,
                             headers: { set: { "X-A": "1" }, add: { "X-B": ["2", "3"] }, remove: ["Server", "X-Powered-By"] },
                             jsonSet: { "/ok": true, "/a~1b": [1.5] } } },
                { setCookie: "sid=old; Path=/" },
                { setCookie: { replay: "sid" } },
                { stripCookie: "*" },
                { fault: { kind: "close-mid-body", bytes: 10 } },
              ],
            },
            {
              name: "dup",
              phase: "request",
              match: { role: "refresh", headers: { "Idempotency-Key": { exists: true } } },
              when: { nth: 2, after: "refresh", before: "logout.delivered", state: "loggedOut" },
              actions: [{ duplicate: { count: 2, spacing: 0.1, timing: "before-response" } }, { fault: "reset" }],
            },
            { name: "stall", phase: "response", actions: [{ fault: { kind: "stall", seconds: 1.5 } }] },
            { name: "truncate", actions: [{ fault: { kind: "truncate", bytes: 5 } }] },
            { name: "chunk", actions: [{ fault: "malformed-chunk" }, { rewrite: { body: "x" } }] },
            { name: "down", actions: [{ fault: "close-before-response" }, { respond: { status: 503, body: "down", headers: { "content-type": "text/plain" } } }] },
            { name: "defaults", actions: [{ fault: "stall" }, { duplicate: {} }, { hold: { name: "bare", onTimeout: "reset", timeout: 0 } }] },
            { name: "json-with-type", actions: [{ rewrite: { json: [1, "two"], headers: { add: { "Content-Type": "application/problem+json" } } } }] },
            { name: "plain" },
          ],
        }
        """

    static func location(_ line: Int, _ column: Int) -> FaultlineConfig.SourceLocation {
        FaultlineConfig.SourceLocation(file: "Rules/everything.json5", line: line, column: column)
    }

    static let expected = Scenario(
        name: "everything", file: "Rules/everything.json5", description: "all the keys", enabled: false,
        states: ["started", "loggedOut"], initialState: "started", scope: .lineage, seed: 42,
        rules: [
            Rule(
                name: "expire",
                match: FlowMatch(
                    methods: ["GET", "POST"], scheme: "https", host: Glob("*.example.test"), port: 8443,
                    path: Glob("/api/**"),
                    pathRegex: RegexPattern("^/api/v[0-9]+/"),
                    query: ["page": .equals("1"), "debug": .exists(false), "id": .regex(RegexPattern("^[0-9]+$"))],
                    headers: ["Authorization": .contains("Bearer"), "X-Trace": .equals("t")],
                    cookies: ["session": .exists(true)],
                    body: BodyMatch(
                        json: [
                            "/user/id": .equals(.number(7)), "/flags": .exists(true),
                            "/tags": .equals(.array([.string("a"), .object([JSONMember(key: "b", value: .null)])])),
                        ],
                        form: ["grant_type": .equals("password"), "scope": .exists(false)], contains: "needle"),
                    role: "callback"),
                conditions: RuleConditions(
                    states: ["started"], times: 3, nth: [1, 3], probability: 0.5, after: .role("login", .responded),
                    before: .mark("stop")),
                transition: "loggedOut",
                actions: [
                    .respond(
                        SyntheticResponse(
                            status: 401, reason: "Nope",
                            headers: [
                                (name: "WWW-Authenticate", value: "Bearer"), (name: "Set-Cookie", value: "a=1"),
                                (name: "Set-Cookie", value: "b=2"), (name: "Content-Type", value: "application/json"),
                            ],
                            body: Array(#"{"error":"invalid_token","n":1}"#.utf8))),
                    .delay(.milliseconds(250)),
                    .hold(
                        HoldSpec(
                            name: "h", releaseOn: .rule("rewrite-it"), timeout: .seconds(2),
                            onTimeout: .respond(status: 504))),
                    .throttle(bytesPerSecond: 1024),
                ],
                location: location(12, 5)),
            Rule(
                name: "rewrite-it", enabled: false, phase: .response,
                match: FlowMatch(
                    status: .statusClass(5), responseHeaders: ["content-type": .regex(RegexPattern("json"))]),
                actions: [
                    .rewrite(
                        ResponseRewrite(
                            status: 200, setHeaders: [(name: "X-A", value: "1")],
                            addHeaders: [(name: "X-B", value: "2"), (name: "X-B", value: "3")],
                            removeHeaders: ["Server", "X-Powered-By"],
                            jsonSet: [
                                (pointer: "/ok", value: .bool(true)), (pointer: "/a~1b", value: .array([.number(1.5)])),
                            ])),
                    .setCookie(.literal("sid=old; Path=/")),
                    .setCookie(.replay(cookieName: "sid")),
                    .stripCookie("*"),
                    .fault(.closeMidBody(afterBytes: 10)),
                ],
                location: location(38, 5)),
            Rule(
                name: "dup", phase: .request,
                match: FlowMatch(headers: ["Idempotency-Key": .exists(true)], role: "refresh"),
                conditions: RuleConditions(
                    states: ["loggedOut"], nth: [2], after: .role("refresh", .forwarded),
                    before: .role("logout", .delivered)),
                actions: [
                    .duplicate(DuplicateSpec(count: 2, spacing: .milliseconds(100), timing: .beforeResponse)),
                    .fault(.reset),
                ],
                location: location(52, 5)),
            Rule(
                name: "stall", phase: .response, actions: [.fault(.stall(.milliseconds(1500)))],
                location: location(59, 5)),
            Rule(name: "truncate", phase: .response, actions: [.fault(.truncate(bytes: 5))], location: location(60, 5)),
            Rule(
                name: "chunk", phase: .response,
                actions: [.fault(.malformedChunk), .rewrite(ResponseRewrite(body: Array("x".utf8)))],
                location: location(61, 5)),
            Rule(
                name: "down",
                actions: [
                    .fault(.closeBeforeResponse),
                    .respond(
                        SyntheticResponse(
                            status: 503, headers: [(name: "content-type", value: "text/plain")],
                            body: Array("down".utf8))),
                ],
                location: location(62, 5)),
            Rule(
                name: "defaults",
                actions: [
                    .fault(.stall(.seconds(30))), .duplicate(DuplicateSpec()),
                    .hold(HoldSpec(name: "bare", timeout: .zero, onTimeout: .reset)),
                ],
                location: location(63, 5)),
            Rule(
                name: "json-with-type", phase: .response,
                actions: [
                    .rewrite(
                        ResponseRewrite(
                            addHeaders: [(name: "Content-Type", value: "application/problem+json")],
                            body: Array(#"[1,"two"]"#.utf8)))
                ],
                location: location(64, 5)),
            Rule(name: "plain", actions: [], location: location(65, 5)),
        ])

    @Test func everyKeyDecodesToTheModel() throws {
        let (scenario, errors) = RuleSetLoader.loadScenario(
            text: Self.everything, file: "Rules/everything.json5", profile: ReadmeProfile.loaded)
        #expect(errors == [])
        let loaded = try #require(scenario)
        #expect(loaded.rules.count == Self.expected.rules.count)
        for (got, want) in zip(loaded.rules, Self.expected.rules) {
            #expect(got == want, "rule \(want.name)")
        }
        #expect(loaded == Self.expected)
    }

    @Test func readmeExampleLoads() throws {
        let text = """
            // What this reproduces, in one or two sentences.
            {
              scenario: "token-race",          // optional; defaults to the file name without .json5
              description: "Three concurrent 401s; the refresh response is held until logout.",
              enabled: true,                    // optional, default true
              states: ["started", "loggedOut"], // optional named states (WireMock-style scenarios)
              initialState: "started",          // required when states are given; the first state otherwise
              scope: "global",                  // "global" (default) or "lineage": state and counters per credential lineage
              seed: 42,                         // seed for `probability` (default 0): same seed, same decisions
              rules: [
                {
                  name: "expire-first-three",   // unique within the file; the trace calls it "token-race/expire-first-three"
                  enabled: true,
                  phase: "request",             // "request" (default) or "response"; see below
                  match: { role: "business" },
                  when: { state: "started", times: 3 },
                  then: { state: "started" },
                  actions: [{ respond: { status: 401, json: { error: "invalid_token" } } }],
                },
              ],
            }
            """
        let (scenario, errors) = RuleSetLoader.loadScenario(text: text, file: "Rules/token-race.json5")
        #expect(errors == [])
        #expect(
            scenario
                == Scenario(
                    name: "token-race", file: "Rules/token-race.json5",
                    description: "Three concurrent 401s; the refresh response is held until logout.",
                    states: ["started", "loggedOut"],
                    initialState: "started", seed: 42,
                    rules: [
                        Rule(
                            name: "expire-first-three", match: FlowMatch(role: "business"),
                            conditions: RuleConditions(states: ["started"], times: 3),
                            transition: "started",
                            actions: [
                                .respond(
                                    SyntheticResponse(
                                        status: 401, headers: [(name: "Content-Type", value: "application/json")],
                                        body: Array(#"{"error":"invalid_token"}"#.utf8)))
                            ],
                            location: FaultlineConfig.SourceLocation(
                                file: "Rules/token-race.json5", line: 11, column: 5))
                    ]))
    }

    @Test func defaultsForAMinimalFile() throws {
        let (scenario, errors) = RuleSetLoader.loadScenario(text: "{rules: []}", file: "some/dir/minimal.json5")
        #expect(errors == [])
        #expect(
            scenario
                == Scenario(
                    name: "minimal", file: "some/dir/minimal.json5", states: ["started"], initialState: "started"))
    }

    @Test func statesAreDeclaredImplicitlyByUse() throws {
        let text = """
            { rules: [
              { name: "a", when: { state: ["started", "b"] }, then: { state: "c" } },
              { name: "b", when: { state: "c" }, then: { state: "d" } },
            ] }
            """
        let (scenario, errors) = RuleSetLoader.loadScenario(text: text, file: "s.json5")
        #expect(errors == [])
        #expect(scenario?.states == ["started", "b", "c", "d"])
        #expect(scenario?.initialState == "started")

        let withInitial = "{ initialState: 'idle', rules: [{ name: 'a', when: { state: 'busy' } }] }"
        let (other, otherErrors) = RuleSetLoader.loadScenario(text: withInitial, file: "s.json5")
        #expect(otherErrors == [])
        #expect(other?.states == ["idle", "busy"])
        #expect(other?.initialState == "idle")
    }

    @Test func profileDecodesToTheModel() {
        let (profile, errors) = RuleSetLoader.loadProfile(text: ReadmeProfile.text, file: "Rules/auth-profile.json5")
        #expect(errors == [])
        #expect(profile == ReadmeProfile.model(file: "Rules/auth-profile.json5"))
        #expect(profile?.readsRequestBodies == true)
    }

    @Test func emptyProfileIsValid() {
        let (profile, errors) = RuleSetLoader.loadProfile(text: "{ $schema: 'x' }", file: "p.json5")
        #expect(errors == [])
        #expect(profile == AuthProfile(file: "p.json5"))
    }

    @Test func jsonBodiesGetAContentTypeUnlessAHeaderSetsOne() throws {
        let text = """
            { rules: [
              { name: 'a', actions: [{ respond: { status: 200, json: { a: 1 } } }] },
              { name: 'b', actions: [{ respond: { status: 200, json: 1, headers: { 'content-TYPE': 'application/problem+json' } } }] },
              { name: 'c', actions: [{ rewrite: { json: true } }] },
              { name: 'd', actions: [{ rewrite: { json: null, headers: { set: { 'Content-Type': 'text/json' } } } }] },
              { name: 'e', actions: [{ respond: { status: 200, body: '{}' } }] },
            ] }
            """
        let (scenario, errors) = RuleSetLoader.loadScenario(text: text, file: "s.json5")
        #expect(errors == [])
        let actions = try #require(scenario?.rules.map(\.actions))
        let json = (name: "Content-Type", value: "application/json")
        #expect(
            actions[0] == [.respond(SyntheticResponse(status: 200, headers: [json], body: Array(#"{"a":1}"#.utf8)))])
        #expect(
            actions[1] == [
                .respond(
                    SyntheticResponse(
                        status: 200, headers: [(name: "content-TYPE", value: "application/problem+json")],
                        body: Array("1".utf8)))
            ])
        #expect(actions[2] == [.rewrite(ResponseRewrite(setHeaders: [json], body: Array("true".utf8)))])
        #expect(
            actions[3] == [
                .rewrite(
                    ResponseRewrite(setHeaders: [(name: "Content-Type", value: "text/json")], body: Array("null".utf8)))
            ])
        #expect(actions[4] == [.respond(SyntheticResponse(status: 200, body: Array("{}".utf8)))])
    }

    @Test func bodyFileIsReadRelativeToTheRulesFolder() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.write("body.bin", bytes: [0, 1, 2, 255])
        let text = "{ rules: [{ name: 'f', actions: [{ respond: { status: 200, bodyFile: 'body.bin' } }] }] }"
        let (scenario, errors) = RuleSetLoader.loadScenario(text: text, file: folder.path + "/s.json5")
        #expect(errors == [])
        #expect(scenario?.rules.first?.actions == [.respond(SyntheticResponse(status: 200, body: [0, 1, 2, 255]))])
        // An absolute path is used as written.
        let absolute = "{ rules: [{ name: 'f', actions: [{ rewrite: { bodyFile: '\(folder.path)/body.bin' } }] }] }"
        let (other, otherErrors) = RuleSetLoader.loadScenario(text: absolute, file: "elsewhere/s.json5")
        #expect(otherErrors == [])
        #expect(other?.rules.first?.actions == [.rewrite(ResponseRewrite(body: [0, 1, 2, 255]))])
    }
}
