import FaultlineConfig
import Testing

@testable import FaultlineRules

/// Role lists, the `revoke` role and role-limited request locations in `auth-profile.json5`.
@Suite struct LoaderProfileReachTests {
    static let cases: [ProfileCase] = [
        ProfileCase(
            "{ logout: ⟨[] }", "'logout' must be a match object or a non-empty list of them, found an array"),
        ProfileCase(
            "{ logout: [{ path: '/a' }, ⟨'/b'] }", #"each entry of 'logout' must be an object, found "/b""#),
        ProfileCase(
            "{ logout: [{ path: '/a' },\n  { ⟨pth: '/b' }] }",
            "unknown key 'pth' in entry 2 of 'logout' of the auth profile (did you mean 'path'?)"),
        ProfileCase(
            "{ login: [{ path: '/a' }, { path: ⟨'[x' }] }",
            "'path' is not a valid glob: the '[' at character 1 has no closing ']'"),
        ProfileCase(
            "{ revoke: [{ ⟨role: 'x' }] }",
            "'role' cannot be used in the auth profile: the profile is what gives requests their roles"),
        ProfileCase(
            "{ ⟨revok: {} }", "unknown key 'revok' in the auth profile (did you mean 'revoke'?)"),
        ProfileCase(
            "{ roles: { ⟨revoke: {} } }",
            "role 'revoke' is built in and cannot be redefined in 'roles': define it with the top-level 'revoke' key"),
        ProfileCase(
            "{ roles: { cb: [{ path: '/a' }, { ⟨mehtod: 'GET' }] } }",
            "unknown key 'mehtod' in entry 2 of role 'cb' (did you mean 'method'?)"),
        ProfileCase(
            "{ revoke: { path: '/r' }, credentials: { request: [{ form: 'token', kind: 'refresh', roles: ['revoke', ⟨'revok'] }] } }",
            "'roles' names unknown role 'revok' (did you mean 'revoke'?); this profile defines 'revoke', 'business'"),
        ProfileCase(
            "{ credentials: { request: [{ header: 'A', kind: 'access', roles: [⟨'revoke'] }] } }",
            "'roles' names role 'revoke', which this profile does not define; this profile defines 'business'"),
        ProfileCase(
            "{ credentials: { request: [{ header: 'A', kind: 'access', roles: ⟨[] }] } }",
            "'roles' must be a string or a non-empty list of strings, found an array"),
        ProfileCase(
            "{ credentials: { response: [{ json: '/t', kind: 'access', ⟨roles: ['business'] }] } }",
            "'roles' applies only to a location in 'request': a response's credentials count whatever its role"),
    ]

    @Test(arguments: cases) func invalidProfiles(_ testCase: ProfileCase) {
        let marked = Marked(testCase.marked)
        let (profile, errors) = RuleSetLoader.loadProfile(text: marked.text, file: "p.json5")
        #expect(errors == marked.errors(file: "p.json5", testCase.messages))
        #expect(profile == nil)
    }

    @Test func everyRoleTakesOneMatchOrAList() throws {
        let text = """
            {
              login: [
                { method: "POST", path: "/oauth/token", body: { form: { grant_type: "password" } } },
                { method: "POST", path: "/sso/callback" },
              ],
              refresh: { method: "POST", path: "/oauth/token", body: { form: { grant_type: "refresh_token" } } },
              logout: [{ method: "POST", path: "/logout" }, { method: "DELETE", path: "/session" }],
              revoke: { method: "POST", path: "/oauth/revoke" },
              roles: { callback: [{ path: "/jobs/*/complete" }, { path: "/hooks/*" }], ping: { path: "/ping" } },
            }
            """
        let (loaded, errors) = RuleSetLoader.loadProfile(text: text, file: "p.json5")
        #expect(errors == [])
        let profile = try #require(loaded)
        #expect(profile.login.map(\.path) == [Glob("/oauth/token"), Glob("/sso/callback")])
        #expect(profile.refresh.count == 1)
        #expect(profile.logout.map(\.methods) == [["POST"], ["DELETE"]])
        #expect(profile.revoke == [FlowMatch(methods: ["POST"], path: Glob("/oauth/revoke"))])
        #expect(
            profile.roles == [
                ProfileRole(
                    name: "callback",
                    matches: [FlowMatch(path: Glob("/jobs/*/complete")), FlowMatch(path: Glob("/hooks/*"))]),
                ProfileRole(name: "ping", matches: [FlowMatch(path: Glob("/ping"))]),
            ])
        #expect(profile.orderedRoles.map(\.name) == ["login", "refresh", "logout", "revoke", "callback", "ping"])
    }

    @Test func aRequestLocationCanBeLimitedToRoles() throws {
        let text = """
            {
              logout: { path: "/logout" },
              revoke: { path: "/oauth/revoke" },
              credentials: {
                request: [
                  { header: "Authorization", scheme: "Bearer", kind: "access", roles: ["business", "logout"] },
                  { cookie: "session", kind: "session", roles: "logout" },
                  { form: "refresh_token", kind: "refresh" },
                ],
              },
            }
            """
        let (loaded, errors) = RuleSetLoader.loadProfile(text: text, file: "p.json5")
        #expect(errors == [])
        let locations = try #require(loaded).requestCredentials
        #expect(locations.map(\.roles) == [["business", "logout"], ["logout"], nil])
        #expect(locations[0].applies(toRole: "logout") && !locations[0].applies(toRole: "revoke"))
        #expect(locations[2].applies(toRole: "revoke"))
    }

    @Test func revokeMakesTheProfileReadRequestBodies() throws {
        let (withRevoke, _) = RuleSetLoader.loadProfile(text: "{ revoke: { path: '/r' } }", file: "p.json5")
        let (without, _) = RuleSetLoader.loadProfile(text: "{ logout: { path: '/r' } }", file: "p.json5")
        #expect(try #require(withRevoke).readsRequestBodies, "the token is a form field (RFC 7009 §2.1)")
        #expect(try #require(without).readsRequestBodies == false)
        let (listed, _) = RuleSetLoader.loadProfile(
            text: "{ login: [{ path: '/a' }, { path: '/b', body: { contains: 'x' } }] }", file: "p.json5")
        #expect(try #require(listed).readsRequestBodies, "a body match in the second entry counts too")
    }

    @Test func scenariosMayUseTheRevokeRoleWhenTheProfileDefinesIt() throws {
        let (profile, _) = RuleSetLoader.loadProfile(text: "{ revoke: { path: '/r' } }", file: "p.json5")
        let text = "{ rules: [{ name: 'a', match: { role: 'revoke' }, when: { after: 'revoke.delivered' } }] }"
        let (scenario, errors) = RuleSetLoader.loadScenario(text: text, file: "s.json5", profile: profile)
        #expect(errors == [])
        #expect(scenario?.rules.first?.match.role == "revoke")
        // Without `revoke` in the profile the role is refused
        // (LoaderValidationTests.aProfileWithoutARoleRefusesThatRole).
    }
}
