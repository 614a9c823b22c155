import FaultlineConfig
import FaultlineCore
import Testing

@testable import FaultlineRules

/// Every `FlowMatch` field, positive and negative.
@Suite struct MatcherFlowTests {
    private let matches = Fixture.matches

    @Test func emptyMatchMatchesEveryFlow() {
        #expect(matches(FlowMatch(), FlowView()))
        #expect(matches(FlowMatch(), FlowView(method: "DELETE", scheme: "https", host: "x", path: "/y", status: 500)))
    }

    @Test func methodIsExactAndCaseSensitive() {
        #expect(matches(FlowMatch(methods: ["POST"]), FlowView(method: "POST")))
        #expect(matches(FlowMatch(methods: ["GET", "POST"]), FlowView(method: "POST")))
        #expect(!matches(FlowMatch(methods: ["POST"]), FlowView(method: "GET")))
        #expect(!matches(FlowMatch(methods: ["POST"]), FlowView(method: "post")))
    }

    @Test func schemeIsCaseInsensitive() {
        #expect(matches(FlowMatch(scheme: "https"), FlowView(scheme: "https")))
        #expect(matches(FlowMatch(scheme: "HTTPS"), FlowView(scheme: "https")))
        #expect(!matches(FlowMatch(scheme: "https"), FlowView(scheme: "http")))
    }

    @Test func hostAndPort() {
        let match = FlowMatch(host: Glob("*.example.test"), port: 8443)
        #expect(matches(match, FlowView(host: "Api.example.test", port: 8443)))
        #expect(!matches(match, FlowView(host: "api.example.test", port: 443)))
        #expect(!matches(match, FlowView(host: "api.other.test", port: 8443)))
        #expect(FlowView(scheme: "https").port == 443)
        #expect(FlowView(scheme: "http").port == 80)
    }

    @Test func pathGlobIgnoresTheQuery() {
        let match = FlowMatch(path: Glob("/jobs/*/complete"))
        #expect(matches(match, FlowView(path: "/jobs/7/complete", query: "x=1")))
        #expect(!matches(match, FlowView(path: "/jobs/7/start")))
    }

    @Test func pathRegexSearchesUnlessAnchored() {
        #expect(matches(FlowMatch(pathRegex: RegexPattern("/v[0-9]+/")), FlowView(path: "/api/v2/users")))
        #expect(!matches(FlowMatch(pathRegex: RegexPattern("/v[0-9]+/")), FlowView(path: "/api/vx/users")))
        #expect(!matches(FlowMatch(pathRegex: RegexPattern("^/v[0-9]+$")), FlowView(path: "/api/v2")))
        #expect(matches(FlowMatch(pathRegex: RegexPattern("^/api/v[0-9]+$")), FlowView(path: "/api/v2")))
        // A pattern that does not compile never matches (rather than matching everything).
        #expect(!matches(FlowMatch(pathRegex: RegexPattern("(")), FlowView(path: "(")))
    }

    @Test func queryParametersArePercentDecodedAndPlusStaysLiteral() {
        let flow = FlowView(path: "/search", query: "name=J%C3%BCrgen&q=a+b&s=a%20b&flag&empty=&r=1&r=2")
        #expect(matches(FlowMatch(query: ["name": .equals("Jürgen")]), flow))
        #expect(matches(FlowMatch(query: ["q": .equals("a+b")]), flow))
        #expect(!matches(FlowMatch(query: ["q": .equals("a b")]), flow))
        #expect(matches(FlowMatch(query: ["s": .equals("a b")]), flow))
        #expect(matches(FlowMatch(query: ["flag": .exists(true), "empty": .equals("")]), flow))
        #expect(matches(FlowMatch(query: ["missing": .exists(false)]), flow))
        #expect(!matches(FlowMatch(query: ["flag": .exists(false)]), flow))
        #expect(!matches(FlowMatch(query: ["missing": .exists(true)]), flow))
        #expect(matches(FlowMatch(query: ["r": .equals("2")]), flow), "any occurrence may match")
        #expect(matches(FlowMatch(query: ["r": .regex(RegexPattern("^[0-9]$"))]), flow))
        #expect(!matches(FlowMatch(query: ["name": .equals("J%C3%BCrgen")]), flow))
        #expect(!matches(FlowMatch(query: ["x": .exists(true)]), FlowView(query: nil)))
    }

    @Test func invalidPercentEscapesStayAsWritten() {
        let flow = FlowView(query: "a=%zz&b=%4&c=100%")
        #expect(matches(FlowMatch(query: ["a": .equals("%zz"), "b": .equals("%4"), "c": .equals("100%")]), flow))
    }

    @Test func headerNamesAreCaseInsensitiveAndValuesExact() {
        let flow = FlowView(headers: [("X-Client", "ios/17"), ("Accept", "a/b"), ("accept", "c/d")])
        #expect(matches(FlowMatch(headers: ["x-client": .equals("ios/17")]), flow))
        #expect(matches(FlowMatch(headers: ["X-CLIENT": .equals("ios/17")]), flow))
        #expect(!matches(FlowMatch(headers: ["x-client": .equals("IOS/17")]), flow))
        #expect(!matches(FlowMatch(headers: ["x-client": .equals("ios")]), flow))
        #expect(matches(FlowMatch(headers: ["x-client": .contains("ios")]), flow))
        #expect(!matches(FlowMatch(headers: ["x-client": .contains("android")]), flow))
        #expect(matches(FlowMatch(headers: ["x-client": .regex(RegexPattern("^ios/[0-9]+$"))]), flow))
        #expect(!matches(FlowMatch(headers: ["x-client": .regex(RegexPattern("^android"))]), flow))
        #expect(matches(FlowMatch(headers: ["authorization": .exists(false)]), flow))
        #expect(!matches(FlowMatch(headers: ["authorization": .exists(true)]), flow))
        #expect(matches(FlowMatch(headers: ["accept": .equals("c/d")]), flow))
        #expect(matches(FlowMatch(headers: ["accept": .equals("a/b, c/d")]), flow), "RFC 9110 §5.3 combined value")
        #expect(matches(FlowMatch(headers: ["accept": .contains("b, c")]), flow))
    }

    @Test func cookiesComeFromEveryCookieField() {
        let flow = FlowView(headers: [("Cookie", "session=abc; theme=dark"), ("cookie", "tracking=1;lang=fr")])
        #expect(matches(FlowMatch(cookies: ["session": .equals("abc")]), flow))
        #expect(matches(FlowMatch(cookies: ["lang": .equals("fr")]), flow))
        #expect(matches(FlowMatch(cookies: ["theme": .exists(true), "other": .exists(false)]), flow))
        #expect(!matches(FlowMatch(cookies: ["session": .equals("abcd")]), flow))
        #expect(!matches(FlowMatch(cookies: ["session": .exists(false)]), flow))
        #expect(matches(FlowMatch(cookies: ["session": .regex(RegexPattern("^a"))]), flow))
        #expect(!matches(FlowMatch(cookies: ["session": .exists(true)]), FlowView()))
        #expect(!matches(FlowMatch(cookies: ["sess": .exists(true)]), flow), "names are exact")
    }

    @Test func bodyMatchesFailWhenTheBodyWasNotRead() {
        #expect(!matches(FlowMatch(body: BodyMatch(contains: "")), FlowView(body: nil)))
        #expect(!matches(FlowMatch(body: BodyMatch(form: ["a": .exists(false)])), FlowView(body: nil)))
        #expect(!matches(FlowMatch(body: BodyMatch(json: ["/a": .exists(false)])), FlowView(body: nil)))
        #expect(matches(FlowMatch(body: BodyMatch(form: ["a": .exists(false)])), FlowView(body: [])))
    }

    @Test func bodyContainsLooksForBytes() {
        let flow = FlowView(body: Array("{\"grant_type\":\"password\"}".utf8))
        #expect(matches(FlowMatch(body: BodyMatch(contains: "password")), flow))
        #expect(!matches(FlowMatch(body: BodyMatch(contains: "refresh_token")), flow))
        #expect(!matches(FlowMatch(body: BodyMatch(contains: "x")), FlowView(body: [])))
    }

    @Test func bodyFormDecodesPlusAndPercent() {
        let flow = FlowView(body: Array("grant_type=refresh_token&scope=read+write&redirect=a%2Fb&f".utf8))
        #expect(matches(FlowMatch(body: BodyMatch(form: ["grant_type": .equals("refresh_token")])), flow))
        #expect(matches(FlowMatch(body: BodyMatch(form: ["scope": .equals("read write")])), flow))
        #expect(matches(FlowMatch(body: BodyMatch(form: ["redirect": .equals("a/b")])), flow))
        #expect(matches(FlowMatch(body: BodyMatch(form: ["f": .exists(true), "g": .exists(false)])), flow))
        #expect(!matches(FlowMatch(body: BodyMatch(form: ["grant_type": .equals("password")])), flow))
        #expect(!matches(FlowMatch(body: BodyMatch(form: ["scope": .equals("read+write")])), flow))
    }

    @Test func bodyJSONPointers() {
        let body = """
            {"user": {"id": 7, "name": "ada", "tags": ["a", "b"], "a/b": true, "m~n": null},
             "items": [{"sku": "x1", "qty": 2.0}], "flags": {"b": 2, "a": 1}}
            """
        let flow = FlowView(body: Array(body.utf8))
        func json(_ tests: [String: JSONValueMatch]) -> Bool {
            matches(FlowMatch(body: BodyMatch(json: tests)), flow)
        }
        #expect(json(["/user/id": .equals(.number(7))]))
        #expect(json(["/user/id": .equals(.number(7.0))]))
        #expect(!json(["/user/id": .equals(.string("7"))]))
        #expect(json(["/user/name": .equals(.string("ada"))]))
        #expect(json(["/user/tags/1": .equals(.string("b"))]))
        #expect(!json(["/user/tags/2": .exists(true)]))
        #expect(json(["/user/tags/2": .exists(false)]))
        #expect(json(["/user/a~1b": .equals(.bool(true))]))
        #expect(json(["/user/m~0n": .equals(.null), "/user/m~0n ": .exists(false)]))
        #expect(json(["/items/0/qty": .equals(.number(2))]))
        #expect(json(["/items/0/sku": .exists(true), "/items/1": .exists(false)]))
        #expect(
            json(["/flags": .equals(.object([.init(key: "a", value: .number(1)), .init(key: "b", value: .number(2))]))])
        )
        #expect(!json(["/flags": .equals(.object([.init(key: "a", value: .number(1))]))]))
        #expect(json(["/user/tags": .equals(.array([.string("a"), .string("b")]))]))
        #expect(!json(["/user/tags": .equals(.array([.string("b"), .string("a")]))]))
        #expect(!json(["/user/name": .equals(.string("bob"))]))
        #expect(!json(["/nothing": .exists(true)]))
    }

    @Test func bodyJSONTestsFailOnABodyThatIsNotJSON() {
        let flow = FlowView(body: Array("grant_type=password".utf8))
        #expect(!matches(FlowMatch(body: BodyMatch(json: ["/grant_type": .exists(false)])), flow))
        #expect(!matches(FlowMatch(body: BodyMatch(json: ["/grant_type": .exists(true)])), flow))
    }

    @Test func role() {
        #expect(matches(FlowMatch(role: "refresh"), FlowView(role: "refresh")))
        #expect(!matches(FlowMatch(role: "refresh"), FlowView(role: "business")))
        #expect(matches(FlowMatch(role: "business"), FlowView()))
    }

    @Test func statusCodesAndClasses() {
        #expect(matches(FlowMatch(status: .codes([401])), FlowView(status: 401)))
        #expect(matches(FlowMatch(status: .codes([401, 403])), FlowView(status: 403)))
        #expect(!matches(FlowMatch(status: .codes([401, 403])), FlowView(status: 404)))
        #expect(matches(FlowMatch(status: .statusClass(5)), FlowView(status: 503)))
        #expect(matches(FlowMatch(status: .statusClass(5)), FlowView(status: 500)))
        #expect(matches(FlowMatch(status: .statusClass(5)), FlowView(status: 599)))
        #expect(!matches(FlowMatch(status: .statusClass(5)), FlowView(status: 499)))
        #expect(!matches(FlowMatch(status: .statusClass(5)), FlowView(status: 600)))
        #expect(!matches(FlowMatch(status: .statusClass(4)), FlowView(status: nil)), "request phase: no status")
    }

    @Test func responseHeaders() {
        let flow = FlowView(
            status: 200, responseHeaders: [("Set-Cookie", "session=1"), ("Content-Type", "application/json")])
        #expect(matches(FlowMatch(responseHeaders: ["content-type": .contains("json")]), flow))
        #expect(matches(FlowMatch(responseHeaders: ["set-cookie": .regex(RegexPattern("^session="))]), flow))
        #expect(!matches(FlowMatch(responseHeaders: ["content-type": .equals("text/html")]), flow))
        #expect(!matches(FlowMatch(responseHeaders: ["x-none": .exists(true)]), flow))
        #expect(
            !matches(
                FlowMatch(responseHeaders: ["content-type": .exists(true)]), FlowView(headers: [("Content-Type", "a")]))
        )
    }

    @Test func everySetFieldMustMatch() {
        let match = FlowMatch(methods: ["POST"], path: Glob("/oauth/token"), role: "login")
        #expect(matches(match, FlowView(method: "POST", path: "/oauth/token", role: "login")))
        #expect(!matches(match, FlowView(method: "POST", path: "/oauth/token", role: "refresh")))
        #expect(!matches(match, FlowView(method: "GET", path: "/oauth/token", role: "login")))
        #expect(!matches(match, FlowView(method: "POST", path: "/oauth/tokens", role: "login")))
    }
}
