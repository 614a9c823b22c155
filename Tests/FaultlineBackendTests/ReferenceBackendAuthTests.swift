import FaultlineBackend
import FaultlineHTTP1
import Testing

/// Login, refresh rotation, reuse detection, logout and expiry over loopback.
@Suite struct ReferenceBackendAuthTests {
    @Test func loginIssuesTokensAndASessionCookie() throws {
        try withBackend { backend, port in
            let client = try BackendClient(port: port)
            let response = try client.token("grant_type=password&username=alice&password=secret")
            #expect(response.status == 200)
            #expect(response.string("/token_type") == "Bearer")
            #expect(response.int("/expires_in") == 300)
            #expect(response.headers.first(name: "Content-Type") == "application/json")
            #expect(response.headers.first(name: "Cache-Control") == "no-store")
            let cookie = try #require(response.headers.first(name: "Set-Cookie"))
            #expect(cookie.hasPrefix("session=sess_") && cookie.hasSuffix("; Path=/; HttpOnly"))
            let credentials = try Credentials(response)
            #expect(credentials.access != credentials.refresh)

            let byBearer = try client.call("/v1/me", bearer: credentials.access)
            #expect(byBearer.status == 200 && byBearer.string("/account") == "alice")
            let byCookie = try client.call("/v1/messages", session: credentials.session)
            #expect(byCookie.status == 200 && byCookie.string("/account") == "alice")
            #expect(backend.stats().logins == 1)
        }
    }

    @Test func refreshRotatesThePair() throws {
        try withBackend { backend, port in
            let client = try BackendClient(port: port)
            let first = try login(client)
            let response = try client.token("grant_type=refresh_token&refresh_token=\(first.refresh)")
            #expect(response.status == 200)
            #expect(response.headers.first(name: "Set-Cookie") == nil)
            let second = try Credentials(response)
            #expect(second.access != first.access && second.refresh != first.refresh)
            #expect(try client.call("/v1/me", bearer: second.access).status == 200)
            let old = try client.call("/v1/me", bearer: first.access)
            #expect(old.status == 401 && old.string("/error") == "invalid_token")
            // The session cookie belongs to the family and survives the rotation.
            #expect(try client.call("/v1/me", session: first.session).status == 200)
            #expect(backend.stats().refreshes == 1)
        }
    }

    @Test func reusingARotatedRefreshTokenRevokesTheFamily() throws {
        try withBackend { backend, port in
            let client = try BackendClient(port: port)
            let first = try login(client)
            let other = try login(client, "alice")
            let second = try Credentials(try client.token("grant_type=refresh_token&refresh_token=\(first.refresh)"))

            let replay = try client.token("grant_type=refresh_token&refresh_token=\(first.refresh)")
            #expect(replay.status == 400 && replay.string("/error") == "invalid_grant")
            // Every credential of the family is dead now, the newest included.
            let rejected = try client.call("/v1/messages", bearer: second.access)
            #expect(rejected.status == 401)
            #expect(rejected.headers.first(name: "WWW-Authenticate") == #"Bearer error="invalid_token""#)
            #expect(try client.call("/v1/messages", session: second.session).status == 401)
            let late = try client.token("grant_type=refresh_token&refresh_token=\(second.refresh)")
            #expect(late.status == 400 && late.string("/error") == "invalid_grant")
            // Another login of the same account is its own family.
            #expect(try client.call("/v1/me", bearer: other.access).status == 200)

            let stats = backend.stats()
            #expect(stats.reuseDetections == 1 && stats.revokedFamilies == 1 && stats.rejectedRefreshes == 1)
        }
    }

    @Test func revocationEndpointRevokesTheFamilyAndAnswers200ForAnyToken() throws {
        try withBackend { backend, port in
            let client = try BackendClient(port: port)
            let alice = try login(client)
            let revoked = try client.revoke("token=\(alice.refresh)&token_type_hint=refresh_token")
            #expect(revoked.status == 200 && revoked.body.isEmpty)
            #expect(revoked.headers.first(name: "Cache-Control") == "no-store")
            #expect(try client.call("/v1/me", bearer: alice.access).status == 401)
            let refresh = try client.token("grant_type=refresh_token&refresh_token=\(alice.refresh)")
            #expect(refresh.status == 400 && refresh.string("/error") == "invalid_grant")
            // RFC 7009 §2.2: an invalid, unknown or already revoked token is no error; a wrong
            // hint changes nothing (§2.1).
            #expect(try client.revoke("token=\(alice.access)").status == 200)
            #expect(try client.revoke("token=at_nobody&token_type_hint=access_token").status == 200)
            let bob = try login(client, "bob")
            #expect(try client.revoke("token=\(bob.access)&token_type_hint=refresh_token").status == 200)
            #expect(try client.call("/v1/me", bearer: bob.access).status == 401)

            let missing = try client.revoke("token_type_hint=access_token")
            #expect(missing.status == 400 && missing.string("/error") == "invalid_request")
            let hint = try client.revoke("token=\(alice.access)&token_type_hint=id_token")
            #expect(hint.status == 400 && hint.string("/error") == "unsupported_token_type")
            let stats = backend.stats()
            #expect(stats.revocationRequests == 4 && stats.revocations == 2 && stats.revokedFamilies == 2)
            #expect(stats.requestCount("POST /oauth/revoke") == 6 && stats.logouts == 0)
        }
    }

    @Test func logoutRevokesTheFamilyAndClearsTheCookie() throws {
        try withBackend { backend, port in
            let client = try BackendClient(port: port)
            let alice = try login(client)
            let bob = try login(client, "bob")
            let logout = try client.call("POST", "/logout", bearer: alice.access)
            #expect(logout.status == 204 && logout.body.isEmpty)
            #expect(logout.headers.first(name: "Set-Cookie") == "session=; Max-Age=0; Path=/")
            #expect(try client.call("/v1/me", bearer: alice.access).status == 401)
            #expect(try client.call("/v1/me", session: alice.session).status == 401)
            // A refresh that arrives after logout must not sign the user back in.
            #expect(try client.token("grant_type=refresh_token&refresh_token=\(alice.refresh)").status == 400)
            // Logout by cookie alone works too; bob's own family is untouched until then.
            #expect(try client.call("/v1/me", bearer: bob.access).status == 200)
            #expect(try client.call("POST", "/logout", session: bob.session).status == 204)
            #expect(try client.call("/v1/me", bearer: bob.access).status == 401)
            // Logging out again, or with nothing, is still 204.
            #expect(try client.call("POST", "/logout", bearer: alice.access).status == 204)
            #expect(try client.call("POST", "/logout").status == 204)
            let stats = backend.stats()
            #expect(stats.logouts == 2 && stats.revokedFamilies == 2 && stats.reuseDetections == 0)
        }
    }

    @Test func expiredAccessTokensGet401WithAChallengeAndRefreshRecovers() throws {
        try withBackend { backend, port in
            let client = try BackendClient(port: port)
            let alice = try login(client)
            let bob = try login(client, "bob")
            let expire = try client.request("POST", "/_backend/expire?account=alice", body: "")
            #expect(expire.status == 200 && expire.int("/expired") == 1)
            let rejected = try client.call("/v1/messages", bearer: alice.access)
            #expect(rejected.status == 401)
            #expect(rejected.headers.first(name: "WWW-Authenticate") == #"Bearer error="invalid_token""#)
            #expect(rejected.string("/error") == "invalid_token")
            #expect(rejected.string("/error_description") == "the access token expired")
            #expect(try client.call("/v1/messages", bearer: bob.access).status == 200)

            let renewed = try Credentials(try client.token("grant_type=refresh_token&refresh_token=\(alice.refresh)"))
            #expect(try client.call("/v1/messages", bearer: renewed.access).status == 200)

            #expect(backend.expireAccessTokens() == 2)
            #expect(try client.call("/v1/messages", bearer: bob.access).status == 401)
            #expect(try client.call("/v1/messages", bearer: renewed.access).status == 401)
        }
    }

    @Test func theTokenLifetimeIsConfigurable() throws {
        try withBackend(BackendConfiguration(tokenLifetime: .zero)) { _, port in
            let client = try BackendClient(port: port)
            let response = try client.token("grant_type=password&username=alice&password=x")
            #expect(response.int("/expires_in") == 0)
            #expect(try client.call("/v1/me", bearer: try Credentials(response).access).status == 401)
        }
    }

    @Test func lockedAccountsAndMissingCredentialsAreRefused() throws {
        try withBackend { backend, port in
            let client = try BackendClient(port: port)
            let locked = try client.token("grant_type=password&username=locked&password=x")
            #expect(locked.status == 400 && locked.string("/error") == "invalid_grant")
            let anonymous = try client.call("/v1/count")
            #expect(anonymous.status == 401)
            // RFC 6750 §3.1: no error code when no credential was presented.
            #expect(anonymous.headers.first(name: "WWW-Authenticate") == "Bearer")
            let unknown = try client.call("/v1/count", bearer: "at_forged")
            #expect(unknown.status == 401 && unknown.string("/error") == "invalid_token")
            let stats = backend.stats()
            #expect(stats.rejectedLogins == 1 && stats.logins == 0 && stats.unauthorized == 2)
        }
    }

    @Test func aBearerTokenWithAnotherFamilysCookieIsCountedAsMixed() throws {
        try withBackend { backend, port in
            let client = try BackendClient(port: port)
            let alice = try login(client)
            let bob = try login(client, "bob")
            let response = try client.request(
                "GET", "/v1/me",
                headers: [
                    ("Authorization", "Bearer \(bob.access)"), ("Cookie", "theme=dark; session=\(alice.session!)"),
                ])
            #expect(response.status == 200 && response.string("/account") == "bob")
            #expect(backend.stats().mixedCredentials == 1)
        }
    }

    @Test func resetForgetsEverything() throws {
        try withBackend { backend, port in
            let client = try BackendClient(port: port)
            let alice = try login(client)
            #expect(try client.request("POST", "/_backend/reset", body: "").status == 204)
            #expect(try client.call("/v1/me", bearer: alice.access).status == 401)
            #expect(backend.stats().logins == 0)
            _ = try login(client)
            backend.reset()
            #expect(backend.stats() == BackendStats())
        }
    }
}
