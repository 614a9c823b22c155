import FaultlineConfig
import Testing

@testable import FaultlineRules

/// One invalid auth profile: `⟨` marks where each error must point.
struct ProfileCase: CustomTestStringConvertible, Sendable {
    let marked: String
    let messages: [String]

    init(_ marked: String, _ messages: String...) {
        self.marked = marked
        self.messages = messages
    }

    var testDescription: String { marked }
}

@Suite struct LoaderProfileTests {
    static let cases: [ProfileCase] = [
        ProfileCase("⟨[]", "an auth profile must be an object, found an array"),
        ProfileCase("{ login: ⟨}", "expected a value for 'login', found '}'"),
        ProfileCase("{ ⟨logn: {} }", "unknown key 'logn' in the auth profile (did you mean 'login'?)"),
        ProfileCase(
            "{ login: ⟨'POST /login' }",
            #"'login' must be a match object or a non-empty list of them, found "POST /login""#),
        ProfileCase(
            "{ login: { ⟨pth: '/login' } }", "unknown key 'pth' in 'login' of the auth profile (did you mean 'path'?)"),
        ProfileCase(
            "{ login: { ⟨role: 'x' } }",
            "'role' cannot be used in the auth profile: the profile is what gives requests their roles"),
        ProfileCase(
            "{ refresh: { ⟨status: 401, ⟨responseHeaders: {} } }",
            "'status' cannot be used in the auth profile: roles are decided from the request alone",
            "'responseHeaders' cannot be used in the auth profile: roles are decided from the request alone"),
        ProfileCase(
            "{ logout: { path: ⟨'[x' } }", "'path' is not a valid glob: the '[' at character 1 has no closing ']'"),
        ProfileCase(
            "{ roles: { ⟨login: {} } }",
            "role 'login' is built in and cannot be redefined in 'roles': define it with the top-level 'login' key"),
        ProfileCase(
            "{ roles: { ⟨business: {} } }",
            "role 'business' is built in and cannot be redefined in 'roles': every request no role matches is 'business'"
        ),
        ProfileCase(
            "{ roles: { ⟨'call.back': {} } }", "role name 'call.back' may only use letters, digits, '-' and '_'"),
        ProfileCase("{ roles: { ⟨'': {} } }", "role name '' may only use letters, digits, '-' and '_'"),
        ProfileCase(
            "{ roles: { cb: ⟨'x' } }", #"role 'cb' must be a match object or a non-empty list of them, found "x""#),
        ProfileCase(
            "{ roles: { cb: { ⟨mehtod: 'GET' } } }", "unknown key 'mehtod' in role 'cb' (did you mean 'method'?)"),
        ProfileCase("{ roles: ⟨[] }", "'roles' must be an object, found an array"),
        ProfileCase(
            "{ credentials: { ⟨requests: [] } }",
            "unknown key 'requests' in 'credentials' of the auth profile (did you mean 'request'?)"),
        ProfileCase("{ credentials: { request: ⟨{} } }", "'request' must be an array, found an object"),
        ProfileCase(
            "{ credentials: { request: [⟨{ kind: 'access' }] } }",
            "a credential location in 'request' needs one of 'header', 'cookie', 'form' or 'json'"),
        ProfileCase(
            "{ credentials: { request: [{ header: 'A', ⟨cookie: 'b', kind: 'access' }] } }",
            "a credential location in 'request' takes exactly one of 'header', 'cookie', 'form' or 'json'; found 'header' and 'cookie'"
        ),
        ProfileCase(
            "{ credentials: { request: [⟨{ header: 'A' }] } }",
            "missing required key 'kind' in a credential location in 'request'"),
        ProfileCase(
            "{ credentials: { request: [{ header: 'A', kind: ⟨'acess' }] } }",
            #"'kind' must be "access", "refresh" or "session", found "acess" (did you mean 'access'?)"#),
        ProfileCase(
            "{ credentials: { request: [{ cookie: 'a', ⟨scheme: 'Bearer', kind: 'session' }] } }",
            "'scheme' applies only to a 'header' location"),
        ProfileCase(
            "{ credentials: { request: [{ header: 'A', scheme: ⟨'', kind: 'access' }] } }",
            #"'scheme' must be a non-empty string, found """#),
        ProfileCase(
            "{ credentials: { response: [⟨{ ⟨cookie: 'a', kind: 'session' }] } }",
            "a credential location in 'response' needs one of 'json', 'setCookie' or 'header'",
            "unknown key 'cookie' in a credential location in 'response'"),
        ProfileCase(
            "{ credentials: { request: [⟨{ ⟨setCookie: 'a', kind: 'session' }] } }",
            "a credential location in 'request' needs one of 'header', 'cookie', 'form' or 'json'",
            "unknown key 'setCookie' in a credential location in 'request'"),
        ProfileCase(
            "{ credentials: { response: [{ json: ⟨'token', kind: 'access' }] } }",
            "'token' is not a valid JSON pointer: a JSON pointer must be empty or start with '/'"),
        ProfileCase(
            "{ credentials: { request: [{ header: ⟨'A B', kind: 'access' }] } }",
            #"'header' must be a header name (RFC 9110 §5.1: a token), found "A B""#),
        ProfileCase(
            "{ credentials: { request: [{ cookie: ⟨'a=b', kind: 'session' }] } }",
            #"'cookie' must be a cookie name (RFC 6265 §4.1.1: a token), found "a=b""#),
        ProfileCase(
            "{ credentials: { request: [{ form: ⟨'', kind: 'refresh' }] } }",
            #"'form' must be a non-empty string, found """#),
        ProfileCase(
            "{ idempotencyHeader: ⟨'Idem Key' }",
            #"'idempotencyHeader' must be a header name (RFC 9110 §5.1: a token), found "Idem Key""#),
    ]

    @Test(arguments: cases) func invalidProfiles(_ testCase: ProfileCase) {
        let marked = Marked(testCase.marked)
        let (profile, errors) = RuleSetLoader.loadProfile(text: marked.text, file: "p.json5")
        #expect(errors == marked.errors(file: "p.json5", testCase.messages))
        #expect(profile == nil)
    }

    @Test func customRoleNamesMayUseLettersDigitsDashAndUnderscore() {
        let text =
            "{ roles: { 'job-callback_2': { path: '/cb' }, rôle: {} }, credentials: { response: [{ header: 'X-Token', scheme: 'Token', kind: 'access' }] } }"
        let (profile, errors) = RuleSetLoader.loadProfile(text: text, file: "p.json5")
        #expect(errors == [])
        #expect(profile?.roles.map(\.name) == ["job-callback_2", "rôle"])
        #expect(
            profile?.responseCredentials == [
                CredentialLocation(.header(name: "X-Token", scheme: "Token"), kind: .access)
            ])
    }
}
