import FaultlineCore
import Testing

@testable import FaultlineBackend

/// The token store on its own: no sockets, a chosen clock.
@Suite struct TokenStoreTests {
    let start = MonotonicInstant(nanoseconds: 1_000_000_000_000)
    var store = TokenStore(tokenLifetime: .seconds(300))

    func later(_ duration: Duration) -> MonotonicInstant { start.advanced(by: duration) }

    @Test mutating func loginIssuesDistinctTokensThatWorkUntilTheLifetimeEnds() {
        let grant = store.login(account: "alice", now: start)
        #expect(Set([grant.accessToken, grant.refreshToken, grant.sessionToken]).count == 3)
        #expect(grant.accessToken.hasPrefix("at_") && grant.accessToken.count == 3 + 32)
        #expect(grant.expiresIn == .seconds(300))
        #expect(grant.identity == TokenStore.Identity(family: 1, account: "alice"))
        #expect(
            store.checkAccess(grant.accessToken, now: later(.seconds(300) - .nanoseconds(1))) == .valid(grant.identity))
        #expect(store.checkAccess(grant.accessToken, now: later(.seconds(300))) == .rejected(.expired))
        // Sessions do not expire with the access token.
        #expect(store.checkSession(grant.sessionToken) == .valid(grant.identity))
        #expect(store.counters.logins == 1)
    }

    @Test mutating func eachLoginStartsItsOwnFamily() {
        let first = store.login(account: "alice", now: start)
        let second = store.login(account: "alice", now: start)
        #expect(first.identity.family == 1 && second.identity.family == 2)
        #expect(store.checkAccess(first.accessToken, now: start) == .valid(first.identity))
        #expect(store.checkAccess(second.accessToken, now: start) == .valid(second.identity))
    }

    @Test mutating func refreshRotatesThePairAndRetiresTheOldAccessToken() throws {
        let login = store.login(account: "alice", now: start)
        guard case .rotated(let next) = store.refresh(login.refreshToken, now: later(.seconds(10))) else {
            Issue.record("the current refresh token was not accepted")
            return
        }
        #expect(next.identity == login.identity)
        #expect(next.accessToken != login.accessToken && next.refreshToken != login.refreshToken)
        #expect(next.sessionToken == login.sessionToken)
        #expect(store.checkAccess(login.accessToken, now: later(.seconds(10))) == .rejected(.superseded))
        #expect(store.checkAccess(next.accessToken, now: later(.seconds(10))) == .valid(login.identity))
        // The new access token lives a full lifetime from the refresh.
        #expect(store.checkAccess(next.accessToken, now: later(.seconds(309))) == .valid(login.identity))
        // And the new refresh token rotates again.
        guard case .rotated = store.refresh(next.refreshToken, now: later(.seconds(20))) else {
            Issue.record("the rotated refresh token was not accepted")
            return
        }
        #expect(store.counters.refreshes == 2)
        #expect(store.counters.reuseDetections == 0)
    }

    @Test mutating func reusingARotatedRefreshTokenRevokesTheWholeFamily() {
        let login = store.login(account: "alice", now: start)
        guard case .rotated(let next) = store.refresh(login.refreshToken, now: start) else {
            Issue.record("rotation failed")
            return
        }
        #expect(store.refresh(login.refreshToken, now: start) == .reuseDetected(login.identity))
        #expect(store.revocation(of: 1) == .reuse)
        // Even the newest credentials are dead now (RFC 6819 §5.2.2.3).
        #expect(store.checkAccess(next.accessToken, now: start) == .rejected(.revoked))
        #expect(store.checkSession(next.sessionToken) == .rejected(.revoked))
        #expect(store.refresh(next.refreshToken, now: start) == .rejected(.revoked))
        // A second replay is refused without counting a second detection.
        #expect(store.refresh(login.refreshToken, now: start) == .rejected(.revoked))
        #expect(store.counters.reuseDetections == 1)
        #expect(store.counters.revokedFamilies == 1)
    }

    @Test mutating func reuseInOneFamilyLeavesTheOthersAlone() {
        let first = store.login(account: "alice", now: start)
        let second = store.login(account: "alice", now: start)
        _ = store.refresh(first.refreshToken, now: start)
        _ = store.refresh(first.refreshToken, now: start)
        #expect(store.checkAccess(second.accessToken, now: start) == .valid(second.identity))
        guard case .rotated = store.refresh(second.refreshToken, now: start) else {
            Issue.record("the other family's refresh was refused")
            return
        }
    }

    @Test mutating func unknownTokensAndWrongKindsAreUnknown() {
        let login = store.login(account: "alice", now: start)
        #expect(store.checkAccess("at_nope", now: start) == .rejected(.unknown))
        #expect(store.refresh("rt_nope", now: start) == .rejected(.unknown))
        #expect(store.refresh(login.accessToken, now: start) == .rejected(.unknown))
        #expect(store.checkAccess(login.refreshToken, now: start) == .rejected(.unknown))
        #expect(store.checkSession(login.accessToken) == .rejected(.unknown))
        #expect(store.counters.reuseDetections == 0 && store.counters.revokedFamilies == 0)
    }

    @Test mutating func logoutRevokesTheFamilyOfAnyTokenItEverHad() {
        let login = store.login(account: "alice", now: start)
        guard case .rotated(let next) = store.refresh(login.refreshToken, now: start) else {
            Issue.record("rotation failed")
            return
        }
        // An old access token still names the family.
        #expect(store.logout(presenting: ["at_unknown", login.accessToken]) == login.identity)
        #expect(store.revocation(of: 1) == .logout)
        #expect(store.checkAccess(next.accessToken, now: start) == .rejected(.revoked))
        // A late refresh after logout must not sign the user back in, and is not a reuse.
        #expect(store.refresh(next.refreshToken, now: start) == .rejected(.revoked))
        #expect(store.logout(presenting: [next.sessionToken]) == nil)
        #expect(
            store.counters.logouts == 1 && store.counters.revokedFamilies == 1 && store.counters.reuseDetections == 0)
    }

    @Test mutating func revokingACurrentTokenRevokesItsFamilyOnce() {
        let alice = store.login(account: "alice", now: start)
        let bob = store.login(account: "bob", now: start)
        #expect(store.revoke(token: alice.refreshToken) == .revoked(alice.identity))
        #expect(store.revocation(of: 1) == .revocation)
        // RFC 7009 §2.1: the access tokens of the same grant go with the refresh token.
        #expect(store.checkAccess(alice.accessToken, now: start) == .rejected(.revoked))
        #expect(store.refresh(alice.refreshToken, now: start) == .rejected(.revoked))
        // Revoking again, or revoking the family's other token, finds nothing live.
        #expect(store.revoke(token: alice.accessToken) == .alreadyInvalid)
        #expect(store.revoke(token: "rt_unknown") == .unknown)
        // A session cookie is not a token the revocation endpoint takes.
        #expect(store.revoke(token: bob.sessionToken) == .unknown)
        #expect(store.revoke(token: bob.accessToken) == .revoked(bob.identity))
        #expect(store.counters.revocations == 2 && store.counters.revokedFamilies == 2 && store.counters.logouts == 0)
    }

    @Test mutating func revokingASupersededTokenLeavesTheNewerPairAlive() {
        let login = store.login(account: "alice", now: start)
        guard case .rotated(let next) = store.refresh(login.refreshToken, now: start) else {
            Issue.record("rotation failed")
            return
        }
        #expect(store.revoke(token: login.accessToken) == .alreadyInvalid)
        #expect(store.revoke(token: login.refreshToken) == .alreadyInvalid)
        #expect(store.checkAccess(next.accessToken, now: start) == .valid(login.identity))
        #expect(store.counters.revocations == 0 && store.counters.reuseDetections == 0)
    }

    @Test mutating func expiryCanBeForcedForEveryoneOrOneAccount() {
        let alice = store.login(account: "alice", now: start)
        let bob = store.login(account: "bob", now: start)
        #expect(store.expireAccessTokens(account: "alice", now: later(.seconds(1))) == 1)
        #expect(store.checkAccess(alice.accessToken, now: later(.seconds(1))) == .rejected(.expired))
        #expect(store.checkAccess(bob.accessToken, now: later(.seconds(1))) == .valid(bob.identity))
        #expect(store.expireAccessTokens(now: later(.seconds(2))) == 1)
        #expect(store.checkAccess(bob.accessToken, now: later(.seconds(2))) == .rejected(.expired))
        // A refresh after expiry issues a working token again.
        guard case .rotated(let next) = store.refresh(bob.refreshToken, now: later(.seconds(3))) else {
            Issue.record("refresh after expiry failed")
            return
        }
        #expect(store.checkAccess(next.accessToken, now: later(.seconds(3))) == .valid(bob.identity))
    }

    @Test func aZeroLifetimeIssuesTokensThatAreAlreadyExpired() {
        var store = TokenStore(tokenLifetime: .zero)
        let login = store.login(account: "alice", now: start)
        #expect(store.checkAccess(login.accessToken, now: start) == .rejected(.expired))
    }

    @Test func tokensAreBase64URLWithoutPadding() {
        #expect(RandomToken.base64URL([0xFB, 0xFF]) == "-_8")
        #expect(RandomToken.base64URL(Array("Man".utf8)) == "TWFu")
        #expect(RandomToken.base64URL(Array("Ma".utf8)) == "TWE")
        let tokens = (0..<1000).map { _ in RandomToken.make() }
        #expect(Set(tokens).count == 1000)
        #expect(
            tokens.allSatisfy {
                $0.count == 32
                    && $0.utf8.allSatisfy { byte in
                        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                            || byte == 0x2D || byte == 0x5F
                    }
            })
    }
}
