import FaultlineConfig
import FaultlineCore
import Testing

@testable import FaultlineRules

/// The request-phase `rewrite` and `route`: what each spelling loads into, which phase a rule
/// with them is in, and the error (message and position) for each wrong spelling.
@Suite struct LoaderRequestEditTests {
    /// The one rule of a file with one rule named `x` whose remaining keys are `body`.
    static func rule(_ body: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Rule? {
        let (scenario, errors) = RuleSetLoader.loadScenario(
            text: "{ rules: [{ name: 'x', \(body) }] }", file: "r.json5")
        #expect(errors.map(\.description) == [], sourceLocation: sourceLocation)
        return scenario?.rules.first
    }

    // MARK: Request rewrites

    @Test func aRequestRewriteDecodesEveryKey() throws {
        let rule = try #require(
            Self.rule(
                """
                actions: [{ rewrite: {
                  method: 'PUT', path: '/v2/items/%C3%A9;v=1', query: 'page=2&sort=name',
                  headers: { set: { 'X-Env': 'test' }, add: { 'X-Tag': ['a', 'b'] }, remove: ['Cookie', 'X-Debug'] },
                  json: { name: 'é', n: 1 },
                } }]
                """))
        #expect(rule.phase == .request)
        #expect(
            rule.actions == [
                .rewriteRequest(
                    RequestRewrite(
                        method: "PUT", path: "/v2/items/%C3%A9;v=1", query: "page=2&sort=name",
                        setHeaders: [
                            (name: "X-Env", value: "test"), (name: "Content-Type", value: "application/json"),
                        ],
                        addHeaders: [(name: "X-Tag", value: "a"), (name: "X-Tag", value: "b")],
                        removeHeaders: ["Cookie", "X-Debug"], body: Array(#"{"name":"é","n":1}"#.utf8)))
            ])
    }

    @Test func aJSONBodyKeepsAContentTypeTheRewriteGives() throws {
        let rule = try #require(
            Self.rule(
                "actions: [{ rewrite: { path: '/a', headers: { add: { 'content-type': 'text/json' } }, json: [1] } }]"))
        #expect(
            rule.actions == [
                .rewriteRequest(
                    RequestRewrite(
                        path: "/a", addHeaders: [(name: "content-type", value: "text/json")], body: Array("[1]".utf8)))
            ])
    }

    @Test func anEmptyQueryRemovesTheQueryAndJSONSetNeedsTheBody() throws {
        let rule = try #require(
            Self.rule("actions: [{ rewrite: { query: '', jsonSet: { '/user/id': 7, '/tags/-': 'x' } } }]"))
        let expected = RequestRewrite(
            query: "", jsonSet: [(pointer: "/user/id", value: .number(7)), (pointer: "/tags/-", value: .string("x"))])
        #expect(rule.actions == [.rewriteRequest(expected)])
        #expect(expected.needsBody)
        #expect(!RequestRewrite(method: "POST", body: []).needsBody)
    }

    @Test func aRewriteOfHeadersOrTheBodyAloneFollowsTheRulesPhase() throws {
        let headers = "rewrite: { headers: { set: { 'X-A': '1' } } }"
        let set = [(name: "X-A", value: "1")]
        // Without `phase`: the response, as before request rewrites existed.
        let plain = try #require(Self.rule("actions: [{ \(headers) }]"))
        #expect(plain.phase == .response)
        #expect(plain.actions == [.rewrite(ResponseRewrite(setHeaders: set))])
        let request = try #require(Self.rule("phase: 'request', actions: [{ \(headers) }]"))
        #expect(request.phase == .request)
        #expect(request.actions == [.rewriteRequest(RequestRewrite(setHeaders: set))])
        let response = try #require(Self.rule("phase: 'response', actions: [{ \(headers) }]"))
        #expect(response.actions == [.rewrite(ResponseRewrite(setHeaders: set))])
        // The reasons a rule was in the response phase before still decide.
        let afterStatus = try #require(Self.rule("match: { status: 401 }, actions: [{ \(headers) }]"))
        #expect(afterStatus.actions == [.rewrite(ResponseRewrite(setHeaders: set))])
        let body = try #require(Self.rule("phase: 'request', actions: [{ rewrite: { body: 'x' } }]"))
        #expect(body.actions == [.rewriteRequest(RequestRewrite(body: Array("x".utf8)))])
        let jsonSet = try #require(Self.rule("actions: [{ rewrite: { jsonSet: { '/ok': true } } }]"))
        #expect(jsonSet.actions == [.rewrite(ResponseRewrite(jsonSet: [(pointer: "/ok", value: .bool(true))]))])
    }

    @Test func methodPathAndQueryPutTheRuleInTheRequestPhaseAndStatusInTheResponse() throws {
        for key in ["method: 'POST'", "path: '/x'", "query: 'a=1'"] {
            let rule = try #require(Self.rule("actions: [{ rewrite: { \(key), headers: { remove: 'A' } } }]"))
            #expect(rule.phase == .request, "\(key)")
            guard case .rewriteRequest = rule.actions.first else {
                Issue.record("\(key): \(rule.actions)")
                continue
            }
        }
        let status = try #require(Self.rule("actions: [{ rewrite: { status: 503, headers: { remove: 'A' } } }]"))
        #expect(status.phase == .response)
        #expect(status.actions == [.rewrite(ResponseRewrite(status: 503, removeHeaders: ["A"]))])
        let explicit = try #require(Self.rule("phase: 'request', actions: [{ rewrite: { method: 'DELETE' } }]"))
        #expect(explicit.actions == [.rewriteRequest(RequestRewrite(method: "DELETE"))])
    }

    // MARK: Routes

    static let routeURLs: [(String, RouteTarget)] = [
        ("http://127.0.0.1:8081", RouteTarget(scheme: "http", host: "127.0.0.1", port: 8081, pathPrefix: "")),
        (
            "https://stub.local:8443/prefix",
            RouteTarget(scheme: "https", host: "stub.local", port: 8443, pathPrefix: "/prefix")
        ),
        ("https://stub.local", RouteTarget(scheme: "https", host: "stub.local", port: 443, pathPrefix: "")),
        ("http://stub.local/", RouteTarget(scheme: "http", host: "stub.local", port: 80, pathPrefix: "")),
        ("HTTP://[::1]:9000/api/v2/", RouteTarget(scheme: "http", host: "::1", port: 9000, pathPrefix: "/api/v2")),
        ("http://[2001:db8::1]", RouteTarget(scheme: "http", host: "2001:db8::1", port: 80, pathPrefix: "")),
        (
            "http://my-stub_1.test:1/a%20b",
            RouteTarget(scheme: "http", host: "my-stub_1.test", port: 1, pathPrefix: "/a%20b")
        ),
    ]

    @Test(arguments: routeURLs) func aRouteURLNamesTheWholeDestination(_ url: String, _ target: RouteTarget) throws {
        let rule = try #require(Self.rule("actions: [{ route: '\(url)' }]"))
        #expect(rule.phase == .request)
        #expect(rule.actions == [.route(target)])
    }

    static let routeObjects: [(String, RouteTarget)] = [
        ("{ host: 'stub.local' }", RouteTarget(host: "stub.local")),
        ("{ scheme: 'https', port: 8443 }", RouteTarget(scheme: "https", port: 8443)),
        ("{ pathPrefix: '/v2/' }", RouteTarget(pathPrefix: "/v2")),
        ("{ pathPrefix: '/' }", RouteTarget(pathPrefix: "")),
        ("{ host: '::1' }", RouteTarget(host: "::1")),
        ("{ host: '[::1]', port: 65535 }", RouteTarget(host: "::1", port: 65535)),
        (
            "{ scheme: 'http', host: '10.0.0.2', port: 80, pathPrefix: '/api' }",
            RouteTarget(scheme: "http", host: "10.0.0.2", port: 80, pathPrefix: "/api")
        ),
    ]

    @Test(arguments: routeObjects) func aRouteObjectChangesTheGivenParts(_ object: String, _ target: RouteTarget) throws
    {
        let rule = try #require(Self.rule("actions: [{ route: \(object) }]"))
        #expect(rule.actions == [.route(target)])
    }

    @Test func aRouteCombinesWithRequestActions() throws {
        let rule = try #require(
            Self.rule(
                """
                match: { path: '/v1/flags' },
                actions: [{ route: 'http://127.0.0.1:8081' }, { rewrite: { path: '/flags' } }, { delay: 0.5 }, { hold: { name: 'h' } }]
                """))
        #expect(rule.phase == .request)
        #expect(
            rule.actions == [
                .route(RouteTarget(scheme: "http", host: "127.0.0.1", port: 8081, pathPrefix: "")),
                .rewriteRequest(RequestRewrite(path: "/flags")), .delay(.milliseconds(500)), .hold(HoldSpec(name: "h")),
            ])
    }

    @Test func theExampleFileLoadsIntoARouteAndARequestRewrite() throws {
        let report = RuleSetLoader.load(directory: LoaderExamplesTests.rulesFolder)
        let scenario = try #require(report.ruleSet.scenarios.first { $0.name == "route-and-rewrite" })
        #expect(!scenario.enabled, "off by default, as its comment says")
        #expect(scenario.rules.map(\.phase) == [.request, .request])
        #expect(
            scenario.rules.map(\.actions) == [
                [.route(RouteTarget(scheme: "http", host: "127.0.0.1", port: 8081, pathPrefix: ""))],
                [
                    .rewriteRequest(
                        RequestRewrite(
                            path: "/v2/profile", setHeaders: [(name: "X-Client-Version", value: "1.0")],
                            jsonSet: [(pointer: "/client/legacy", value: .bool(true))]))
                ],
            ])
    }

    // MARK: Errors

    static let rewriteErrors: [ValidationCase] = [
        ValidationCase.rule("actions: [{ rewrite: { method: ⟨5 } }]", "'method' must be a string, found 5"),
        ValidationCase.rule(
            "actions: [{ rewrite: { method: ⟨'GE T' } }]",
            #"'method' must be a method name (RFC 9110 §9.1: a token, such as "POST"), found "GE T""#),
        ValidationCase.rule(
            "actions: [{ rewrite: { method: ⟨'CONNECT' } }]",
            #"'method' cannot be "CONNECT": a CONNECT request names an authority, not a path (RFC 9112 §3.2.3)"#),
        ValidationCase.rule(
            "actions: [{ rewrite: { ⟨metod: 'GET' } }]", "unknown key 'metod' in 'rewrite' (did you mean 'method'?)"),
        ValidationCase.rule(
            "actions: [{ rewrite: { path: ⟨'v2/items' } }]",
            #"'path' must be an origin-form path such as "/v2/items": '/' first, then RFC 3986 path characters and %XX escapes (a space is %20), found "v2/items""#
        ),
        ValidationCase.rule(
            "actions: [{ rewrite: { path: ⟨'/a b' } }]",
            #"'path' must be an origin-form path such as "/v2/items": '/' first, then RFC 3986 path characters and %XX escapes (a space is %20), found "/a b""#
        ),
        ValidationCase.rule(
            "actions: [{ rewrite: { path: ⟨'/a%2' } }]",
            #"'path' must be an origin-form path such as "/v2/items": '/' first, then RFC 3986 path characters and %XX escapes (a space is %20), found "/a%2""#
        ),
        ValidationCase.rule(
            "actions: [{ rewrite: { path: ⟨'/search?q=1' } }]",
            #"'path' cannot hold a query: give it in 'query' (without the '?'), found "/search?q=1""#),
        ValidationCase.rule(
            "actions: [{ rewrite: { path: ⟨'/a#top' } }]",
            #"'path' cannot hold a fragment: a request target has none (RFC 9112 §3.2), found "/a#top""#),
        ValidationCase.rule(
            "actions: [{ rewrite: { query: ⟨'?page=2' } }]",
            #"'query' must be a query without its '?', such as "page=2&sort=name" ("" removes the query): RFC 3986 query characters and %XX escapes (a space is %20), found "?page=2""#
        ),
        ValidationCase.rule(
            "actions: [{ rewrite: { query: ⟨'q=a b' } }]",
            #"'query' must be a query without its '?', such as "page=2&sort=name" ("" removes the query): RFC 3986 query characters and %XX escapes (a space is %20), found "q=a b""#
        ),
        ValidationCase.rule(
            "actions: [{ rewrite: { query: ⟨'a=1#x' } }]",
            #"'query' must be a query without its '?', such as "page=2&sort=name" ("" removes the query): RFC 3986 query characters and %XX escapes (a space is %20), found "a=1#x""#
        ),
        ValidationCase.rule("actions: [{ rewrite: { query: ⟨1 } }]", "'query' must be a string, found 1"),
        ValidationCase.rule(
            "actions: [{ rewrite: { path: '/a', body: 'x', ⟨jsonSet: { '/a': 1 } } }]",
            "'jsonSet' cannot be combined with 'body', which replaces the whole body"),
    ]

    static let phaseErrors: [ValidationCase] = [
        ValidationCase.rule(
            "actions: [{ rewrite: { ⟪status: 200, ⟨method: 'POST', headers: {}, ⟨query: '' } }]",
            #"'method' in 'rewrite' changes the request, but 'status' at @0 changes the response: one rewrite edits one of them; put each in a rule of its own (phase: "request" and phase: "response")"#,
            #"'query' in 'rewrite' changes the request, but 'status' at @0 changes the response: one rewrite edits one of them; put each in a rule of its own (phase: "request" and phase: "response")"#
        ),
        ValidationCase.rule(
            "match: { ⟪status: 401 }, actions: [{ rewrite: { ⟨path: '/x' } }]",
            "'path' in 'rewrite' needs the request phase, but 'status' in 'match' at @0 puts the rule in the response phase"
        ),
        ValidationCase.rule(
            "actions: [{ ⟪setCookie: 'a=1' }, { rewrite: { ⟨method: 'GET' } }]",
            "'method' in 'rewrite' needs the request phase, but 'setCookie' at @0 puts the rule in the response phase"),
        ValidationCase.rule(
            "phase: 'response', actions: [{ rewrite: { ⟨method: 'GET', ⟨path: '/x' } }]",
            #"'method' in 'rewrite' needs the request phase, but the rule says phase: "response""#,
            #"'path' in 'rewrite' needs the request phase, but the rule says phase: "response""#),
        ValidationCase.rule(
            "phase: 'request', actions: [{ rewrite: { method: 'GET', ⟨status: 200 } }]",
            #"'status' in 'rewrite' needs the response phase, but the rule says phase: "request""#),
        ValidationCase.rule(
            "phase: 'response', actions: [{ ⟨route: 'http://a:1' }]",
            #"'route' needs the request phase, but the rule says phase: "response""#),
        ValidationCase.rule(
            "match: { ⟪responseHeaders: { 'X-A': 'b' } }, actions: [{ ⟨route: { port: 81 } }]",
            "'route' needs the request phase, but 'responseHeaders' in 'match' at @0 puts the rule in the response phase"
        ),
        ValidationCase.rule(
            "actions: [{ ⟪rewrite: { headers: { set: { A: '1' } } } }, { ⟨route: 'http://a:1' }]",
            #"'route' needs the request phase, but 'rewrite' at @0 puts the rule in the response phase (to rewrite the request instead, say phase: "request")"#
        ),
        ValidationCase.rule(
            "actions: [{ ⟪route: 'http://a:1' }, { ⟨route: { port: 2 } }]",
            "a rule can have only one 'route' action (the first is at @0)"),
        ValidationCase.rule(
            "actions: [{ respond: { status: 200 } }, { ⟨route: 'http://a:1' }]",
            "'route' cannot be combined with 'respond': a synthetic response never reaches upstream, so there is nothing to route"
        ),
    ]

    static let urlExpected = #"a URL such as "http://127.0.0.1:8081" or "https://stub.local:8443/prefix""#

    static let routeErrors: [ValidationCase] = [
        ValidationCase.rule(
            "actions: [{ route: ⟨5 }]",
            #"'route' must be a URL such as "http://127.0.0.1:8081" or "https://stub.local:8443/prefix", or an object such as { host: "stub.local", port: 8081 }, found 5"#
        ),
        ValidationCase.rule(
            "actions: [{ route: ⟨'127.0.0.1:8081' }]", #"'route' must be \#(urlExpected), found "127.0.0.1:8081""#),
        ValidationCase.rule(
            "actions: [{ route: ⟨'ftp://stub.local' }]",
            #"'route' must use http:// or https://, found scheme 'ftp' in "ftp://stub.local": write \#(urlExpected)"#),
        ValidationCase.rule(
            "actions: [{ route: ⟨'http://' }]", #"'route' needs a host, found "http://": write \#(urlExpected)"#),
        ValidationCase.rule(
            "actions: [{ route: ⟨'http://:8081/a' }]",
            #"'route' needs a host, found "http://:8081/a": write \#(urlExpected)"#),
        ValidationCase.rule(
            "actions: [{ route: ⟨'http://user@stub.local' }]",
            #"'route' names a scheme, a host, a port and a path prefix only (no user info, query or fragment), found "http://user@stub.local": write \#(urlExpected)"#
        ),
        ValidationCase.rule(
            "actions: [{ route: ⟨'http://stub.local/a?b=1' }]",
            #"'route' names a scheme, a host, a port and a path prefix only (no user info, query or fragment), found "http://stub.local/a?b=1": write \#(urlExpected)"#
        ),
        ValidationCase.rule(
            "actions: [{ route: ⟨'http://stub.local#x' }]",
            #"'route' names a scheme, a host, a port and a path prefix only (no user info, query or fragment), found "http://stub.local#x": write \#(urlExpected)"#
        ),
        ValidationCase.rule(
            "actions: [{ route: ⟨'http://stub.local:0' }]",
            #"the port in 'route' must be a number from 1 to 65535, found '0' in "http://stub.local:0""#),
        ValidationCase.rule(
            "actions: [{ route: ⟨'http://stub.local:65536' }]",
            #"the port in 'route' must be a number from 1 to 65535, found '65536' in "http://stub.local:65536""#),
        ValidationCase.rule(
            "actions: [{ route: ⟨'http://stub.local:+80' }]",
            #"the port in 'route' must be a number from 1 to 65535, found '+80' in "http://stub.local:+80""#),
        ValidationCase.rule(
            "actions: [{ route: ⟨'http://stub.local:' }]",
            #"the port in 'route' must be a number from 1 to 65535, found '' in "http://stub.local:""#),
        ValidationCase.rule(
            "actions: [{ route: ⟨'http://::1:8081' }]",
            #"an IPv6 address in 'route' goes in brackets, as in "http://[::1]:8081", found "http://::1:8081""#),
        ValidationCase.rule(
            "actions: [{ route: ⟨'http://[::1:8081' }]",
            #"bad host '[::1:8081' in 'route': a host name or IP address (RFC 3986 §3.2.2), as in "http://127.0.0.1:8081" or "https://stub.local:8443/prefix""#
        ),
        ValidationCase.rule(
            "actions: [{ route: ⟨'http://[stub]:1' }]",
            #"bad host '[stub]' in 'route': a host name or IP address (RFC 3986 §3.2.2), as in "http://127.0.0.1:8081" or "https://stub.local:8443/prefix""#
        ),
        ValidationCase.rule(
            "actions: [{ route: ⟨'http://stub local' }]",
            #"bad host 'stub local' in 'route': a host name or IP address (RFC 3986 §3.2.2), as in "http://127.0.0.1:8081" or "https://stub.local:8443/prefix""#
        ),
        ValidationCase.rule(
            "actions: [{ route: ⟨'http://stub.local/a b' }]",
            "bad path prefix '/a b' in 'route': only RFC 3986 path characters and %XX escapes may appear (a space is %20)"
        ),
        ValidationCase.rule(
            "actions: [{ route: ⟨{} }]",
            #"'route' changes nothing: give 'scheme', 'host', 'port' or 'pathPrefix', or a URL such as "http://127.0.0.1:8081" or "https://stub.local:8443/prefix""#
        ),
        ValidationCase.rule(
            "actions: [{ route: { ⟨hots: 'stub.local' } }]", "unknown key 'hots' in 'route' (did you mean 'host'?)"),
        ValidationCase.rule(
            "actions: [{ route: { ⟨path: '/api' } }]",
            "'route' has no 'path': 'pathPrefix' is put before the request's path; to replace the path, use rewrite: { path }"
        ),
        ValidationCase.rule(
            "actions: [{ route: { scheme: ⟨'htps' } }]",
            #"'scheme' must be "http" or "https", found "htps" (did you mean 'https'?)"#),
        ValidationCase.rule(
            "actions: [{ route: { host: ⟨'' } }]",
            #"'host' must be a host name or IP address, such as "stub.local", "127.0.0.1" or "::1", found """#),
        ValidationCase.rule(
            "actions: [{ route: { host: ⟨'stub.local:8081' } }]",
            #"'host' must be a host name or IP address, such as "stub.local", "127.0.0.1" or "::1", found "stub.local:8081""#
        ),
        ValidationCase.rule(
            "actions: [{ route: { host: ⟨'cafe:80' } }]",
            #"'host' must be a host name or IP address, such as "stub.local", "127.0.0.1" or "::1", found "cafe:80""#),
        ValidationCase.rule(
            "actions: [{ route: { host: ⟨'a/b' } }]",
            #"'host' must be a host name or IP address, such as "stub.local", "127.0.0.1" or "::1", found "a/b""#),
        ValidationCase.rule(
            "actions: [{ route: { port: ⟨0 } }]", "'port' must be an integer from 1 to 65535, found 0"),
        ValidationCase.rule(
            "actions: [{ route: { port: ⟨'81' } }]", #"'port' must be an integer from 1 to 65535, found "81""#),
        ValidationCase.rule(
            "actions: [{ route: { pathPrefix: ⟨'api' } }]",
            #"'pathPrefix' must be a path such as "/api": '/' first, then RFC 3986 path characters and %XX escapes (no '?' or '#'), found "api""#
        ),
        ValidationCase.rule(
            "actions: [{ route: { pathPrefix: ⟨'/api?v=1' } }]",
            #"'pathPrefix' must be a path such as "/api": '/' first, then RFC 3986 path characters and %XX escapes (no '?' or '#'), found "/api?v=1""#
        ),
    ]

    @Test(arguments: rewriteErrors) func wrongRequestRewrites(_ testCase: ValidationCase) { testCase.run() }
    @Test(arguments: phaseErrors) func wrongPhases(_ testCase: ValidationCase) { testCase.run() }
    @Test(arguments: routeErrors) func wrongRoutes(_ testCase: ValidationCase) { testCase.run() }
}
