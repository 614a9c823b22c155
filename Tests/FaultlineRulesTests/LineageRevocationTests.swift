import Testing

@testable import FaultlineRules

/// RFC 7009 revocations, role lists and role-limited locations in the tracker.
@Suite struct LineageRevocationTests {
    private let f = LineageFixture.self

    private func token(_ kind: CredentialKind, _ raw: String) -> Credential {
        f.credential(kind, "form token", raw)
    }

    @Test func theHintGivesTheTokensKind() {
        let wire = Wire()
        _ = wire.login(access: "A1", refresh: "R1", session: "S1")
        let byHint = wire.send(f.revoke("A1", hint: "refresh_token"))
        #expect(byHint.role == FlowRole.revoke)
        #expect(byHint.credentials == [token(.refresh, "A1")], "the client's hint is what the trace shows")
        #expect(byHint.lineage == LineageID(1))
        #expect(wire.send(f.revoke("R1", hint: "access_token")).credentials == [token(.access, "R1")])
        #expect(
            wire.send(f.revoke("never-issued", hint: "access_token")).credentials == [token(.access, "never-issued")])
    }

    @Test func withoutAHintTheKindIsTheOneTheValueWasIssuedAs() {
        let wire = Wire()
        _ = wire.login(access: "A1", refresh: "R1", session: "S1")
        _ = wire.complete(wire.send(f.refreshRequest("R1")), json: #"{"access_token": "A2", "refresh_token": "R2"}"#)
        #expect(wire.send(f.revoke("R2")).credentials == [token(.refresh, "R2")])
        #expect(wire.send(f.revoke("A2")).credentials == [token(.access, "A2")])
        #expect(wire.send(f.revoke("A1")).credentials == [token(.access, "A1")], "a replaced token keeps its kind")
        #expect(wire.send(f.revoke("S1")).credentials == [token(.session, "S1")])
        // RFC 7009 §2.1: a hint the server does not know is ignored, and so it is here.
        #expect(wire.send(f.revoke("R1", hint: "id_token")).credentials == [token(.refresh, "R1")])
    }

    @Test func anUnknownTokenWithoutAHintIsARefreshTokenOfNoLineage() {
        let wire = Wire()
        _ = wire.login(access: "A1", refresh: "R1", session: "S1")
        let sent = wire.send(f.revoke("never-issued"))
        #expect(LineageTracker.unknownRevocationKind == .refresh)
        #expect(sent.credentials == [token(.refresh, "never-issued")])
        #expect(sent.lineage == nil)
        #expect(wire.complete(sent).isEmpty, "no lineage owns it, so nothing is revoked from one")
        #expect(wire.send(f.revoke("")).credentials.isEmpty, "an empty token is no credential")
    }

    @Test func aSuccessfulRevocationIsLineageRevoked() {
        let wire = Wire()
        _ = wire.login(access: "A1", refresh: "R1", session: "S1")
        let sent = wire.send(f.revoke("R1", hint: "refresh_token"))
        #expect(sent.events.isEmpty, "sending a revocation changes nothing")
        #expect(wire.complete(sent, status: 503).isEmpty, "RFC 7009 §2.2.1: 503 means try again, not revoked")
        #expect(wire.complete(sent) == [.revoked(LineageID(1), revoked: [token(.refresh, "R1")], afterLogout: false)])
        #expect(wire.tracker.lineages().map(\.isOpen) == [true], "only a logout closes a lineage")
        #expect(wire.send(f.business(bearer: "A1")).lineage == LineageID(1))
    }

    @Test func revokingLateTokensAfterLogoutIsFlaggedAfterLogout() {
        let wire = Wire()
        _ = wire.login(access: "A1", refresh: "R1", session: "S1")
        let refresh = wire.send(f.refreshRequest("R1"))
        _ = wire.send(f.logout(bearer: "A1"))
        let late = wire.complete(refresh, json: #"{"access_token": "A2", "refresh_token": "R2"}"#)
        #expect(late.map(\.name) == ["lineage.refresh"])
        let revokeRefresh = wire.send(f.revoke("R2"))
        #expect(revokeRefresh.lineage == LineageID(1))
        #expect(
            wire.complete(revokeRefresh) == [
                .revoked(LineageID(1), revoked: [token(.refresh, "R2")], afterLogout: true)
            ])
        let revokeAccess = wire.send(f.revoke("A2", hint: "access_token"))
        #expect(
            wire.complete(revokeAccess) == [.revoked(LineageID(1), revoked: [token(.access, "A2")], afterLogout: true)])
        #expect(
            LineageEvent.revoked(LineageID(1), revoked: [token(.access, "A2")], afterLogout: true).description
                == "lineage.revoked L1 revoked=[access@form token=\(f.fp("A2"))] after-logout")
    }

    @Test func aLocationWrittenForTheTokenWinsOverTheAutomaticOne() {
        var profile = LineageFixture.profile
        profile.requestCredentials.append(CredentialLocation(.form("token"), kind: .access, roles: [FlowRole.revoke]))
        let wire = Wire(profile: profile)
        _ = wire.login(access: "A1", refresh: "R1", session: "S1")
        let sent = wire.send(f.revoke("R1", hint: "refresh_token"))
        #expect(sent.credentials == [token(.access, "R1")], "one credential, of the written kind")
        #expect(wire.complete(sent) == [.revoked(LineageID(1), revoked: [token(.access, "R1")], afterLogout: false)])
        #expect(wire.send(f.business()).credentials.isEmpty, "limited to revoke: no business request reads it")
    }

    @Test func aRoleLimitedLocationCountsOnlyForItsRoles() {
        var profile = LineageFixture.profile
        profile.requestCredentials[0].roles = [FlowRole.business, FlowRole.logout]  // Authorization: Bearer
        let wire = Wire(profile: profile)
        _ = wire.login(access: "A1", refresh: "R1", session: "S1")
        let revocation = wire.send(f.revoke("R1", bearer: "A1"))
        #expect(revocation.credentials == [token(.refresh, "R1")], "the revocation's own Bearer does not count")
        #expect(
            wire.send(f.business(bearer: "A1")).credentials == [f.credential(.access, "header Authorization", "A1")])
        #expect(wire.send(f.logout(bearer: "A1")).events.map(\.name) == ["lineage.logout"])
        let unlimited = Wire()
        _ = unlimited.login(access: "A1", refresh: "R1", session: "S1")
        #expect(
            unlimited.send(f.revoke("R1", bearer: "A1")).credentials == [
                f.credential(.access, "header Authorization", "A1"), token(.refresh, "R1"),
            ])
    }

    @Test func everyLogoutEndpointOfTheListClosesItsLineage() {
        let wire = Wire()
        _ = wire.login(access: "A1", refresh: "R1", session: "S1")
        _ = wire.login(access: "B1", refresh: "BR1", session: "T1")
        let first = wire.send(f.logout(bearer: "A1"))
        let second = wire.send(f.logout(bearer: "B1", path: "/sso/logout"))
        #expect(first.role == FlowRole.logout && second.role == FlowRole.logout)
        #expect(first.events.map(\.lineage) == [LineageID(1)])
        #expect(second.events.map(\.lineage) == [LineageID(2)])
        #expect(wire.tracker.lineages().map(\.isOpen) == [false, false])
        #expect(wire.send(f.logout(bearer: "B1", path: "/elsewhere")).role == FlowRole.business)
    }

    @Test func revokeIsCheckedAfterLogoutAndBeforeCustomRoles() {
        let everything = FlowMatch(path: Glob("/**"))
        let both = AuthProfile(
            logout: [FlowMatch(path: Glob("/logout"))], revoke: [everything],
            roles: [ProfileRole(name: "mine", matches: [everything])], file: "p.json5")
        let tracker = LineageTracker(profile: both, fingerprint: f.fingerprint)
        #expect(tracker.role(of: FlowView(path: "/logout")) == FlowRole.logout)
        #expect(tracker.role(of: FlowView(path: "/x")) == FlowRole.revoke)
        let listed = AuthProfile(
            login: [FlowMatch(path: Glob("/a")), FlowMatch(methods: ["PUT"], path: Glob("/b"))], file: "p.json5")
        let classifier = LineageTracker(profile: listed, fingerprint: f.fingerprint)
        #expect(classifier.role(of: FlowView(path: "/a")) == FlowRole.login)
        #expect(classifier.role(of: FlowView(method: "PUT", path: "/b")) == FlowRole.login)
        #expect(classifier.role(of: FlowView(method: "GET", path: "/b")) == FlowRole.business)
    }

    @Test func aRevokedTokensRawValueAppearsNowhere() {
        let wire = Wire()
        _ = wire.login(access: "SECRET-A", refresh: "SECRET-R", session: "SECRET-S")
        let sent = wire.send(f.revoke("SECRET-R"))
        let events = wire.complete(sent) + wire.complete(wire.send(f.revoke("SECRET-UNKNOWN")))
        let text = "\(sent.credentials) \(events) \(String(reflecting: events))"
        #expect(events.count == 1 && !text.contains("SECRET"), "\(text)")
    }
}
