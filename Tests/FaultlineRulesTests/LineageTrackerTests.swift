import Testing

@testable import FaultlineRules

/// A client session driven through the tracker the way the proxy will: identify the request,
/// send it, complete its response.
struct Wire {
    let tracker: LineageTracker

    init(profile: AuthProfile = LineageFixture.profile) {
        tracker = LineageTracker(profile: profile, fingerprint: LineageFixture.fingerprint)
    }

    struct Sent {
        let role: String
        let credentials: [Credential]
        let lineage: LineageID?
        let events: [LineageEvent]
    }

    func send(_ request: FlowView) -> Sent {
        let identity = tracker.identify(request)
        let events = tracker.requestSent(role: identity.role, credentials: identity.credentials)
        return Sent(role: identity.role, credentials: identity.credentials, lineage: identity.lineage, events: events)
    }

    func complete(
        _ sent: Sent, status: Int = 200, headers: [(name: String, value: String)] = [], json: String? = nil
    ) -> [LineageEvent] {
        tracker.responseCompleted(
            role: sent.role, requestCredentials: sent.credentials, status: status, headers: headers,
            body: json.map { Array($0.utf8) })
    }

    /// A password login answered with tokens and a session cookie.
    func login(access: String, refresh: String, session: String) -> [LineageEvent] {
        complete(
            send(LineageFixture.loginRequest()), headers: [("Set-Cookie", "session=\(session); Path=/; HttpOnly")],
            json: #"{"access_token": "\#(access)", "refresh_token": "\#(refresh)", "token_type": "Bearer"}"#)
    }
}

enum LineageFixture {
    /// The README's profile (the same the loader tests load from text).
    static let profile = ReadmeProfile.model(file: "auth-profile.json5")

    /// FNV-1a, hex: stable and not the raw value (the proxy uses a keyed hash).
    static let fingerprint: @Sendable (String) -> String = { raw in
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in raw.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return "fp:" + String(hash, radix: 16)
    }

    static func fp(_ raw: String) -> String { fingerprint(raw) }

    static func credential(_ kind: CredentialKind, _ place: String, _ raw: String) -> Credential {
        Credential(kind: kind, place: place, fingerprint: fingerprint(raw))
    }

    static func access(_ raw: String) -> Credential { credential(.access, "json /access_token", raw) }
    static func refresh(_ raw: String) -> Credential { credential(.refresh, "json /refresh_token", raw) }
    static func session(_ raw: String) -> Credential { credential(.session, "set-cookie session", raw) }

    static func loginRequest() -> FlowView {
        FlowView(
            method: "POST", path: "/oauth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array("grant_type=password&username=ada&password=hunter2".utf8))
    }

    static func refreshRequest(_ refreshToken: String, cookie: String? = nil) -> FlowView {
        FlowView(
            method: "POST", path: "/oauth/token", headers: cookie.map { [("Cookie", "session=\($0)")] } ?? [],
            body: Array("grant_type=refresh_token&refresh_token=\(refreshToken)".utf8))
    }

    static func business(bearer: String? = nil, cookie: String? = nil) -> FlowView {
        var headers: [(name: String, value: String)] = []
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        if let cookie { headers.append(("Cookie", "theme=dark; session=\(cookie)")) }
        return FlowView(path: "/api/me", headers: headers)
    }

    static func logout(bearer: String, path: String = "/logout") -> FlowView {
        FlowView(method: "POST", path: path, headers: [("Authorization", "Bearer \(bearer)")])
    }

    /// An RFC 7009 §2.1 revocation request for `token`, with `hint` as its token_type_hint.
    static func revoke(_ token: String, hint: String? = nil, bearer: String? = nil) -> FlowView {
        let form = "token=\(token)" + (hint.map { "&token_type_hint=\($0)" } ?? "")
        return FlowView(
            method: "POST", path: "/oauth/revoke",
            headers: [("Content-Type", "application/x-www-form-urlencoded")]
                + (bearer.map { [("Authorization", "Bearer \($0)")] } ?? []),
            body: Array(form.utf8))
    }
}

@Suite struct LineageTrackerTests {
    private let f = LineageFixture.self

    @Test func loginStartsL1WithItsCredentials() throws {
        let wire = Wire()
        let events = wire.login(access: "A1", refresh: "R1", session: "S1")
        #expect(events == [.login(LineageID(1), issued: [f.access("A1"), f.refresh("R1"), f.session("S1")])])
        let info = try #require(wire.tracker.lineages().first)
        #expect(info.id == LineageID(1) && info.isOpen)
        #expect(info.credentials.map(\.fingerprint) == [f.fp("A1"), f.fp("R1"), f.fp("S1")])
        #expect(wire.send(f.business(bearer: "A1")).lineage == LineageID(1))
        #expect(wire.send(f.business(cookie: "S1")).lineage == LineageID(1))
        #expect(wire.send(f.business(bearer: "unknown")).lineage == nil)
    }

    @Test func refreshReplacesTheLineagesCredentials() throws {
        let wire = Wire()
        _ = wire.login(access: "A1", refresh: "R1", session: "S1")
        let sent = wire.send(f.refreshRequest("R1", cookie: "S1"))
        #expect(sent.role == FlowRole.refresh && sent.lineage == LineageID(1))
        let events = wire.complete(sent, json: #"{"access_token": "A2", "refresh_token": "R2"}"#)
        #expect(
            events == [
                .refresh(
                    LineageID(1),
                    presented: [
                        f.credential(.session, "cookie session", "S1"),
                        f.credential(.refresh, "form refresh_token", "R1"),
                    ],
                    replaced: [f.access("A1"), f.refresh("R1")], issued: [f.access("A2"), f.refresh("R2")],
                    afterLogout: false)
            ])
        let info = try #require(wire.tracker.lineages().first)
        #expect(info.credentials == [f.access("A2"), f.refresh("R2"), f.session("S1")])
        #expect(wire.send(f.business(bearer: "A1")).lineage == LineageID(1), "a replaced token is still L1's")
        #expect(wire.send(f.business(bearer: "A2")).lineage == LineageID(1))
    }

    @Test func failedRefreshAndFailedLoginChangeNothing() {
        let wire = Wire()
        #expect(wire.complete(wire.send(f.loginRequest()), status: 401, json: #"{"access_token": "X"}"#).isEmpty)
        #expect(wire.tracker.lineages().isEmpty)
        _ = wire.login(access: "A1", refresh: "R1", session: "S1")
        #expect(
            wire.complete(wire.send(f.refreshRequest("R1")), status: 400, json: #"{"error": "invalid_grant"}"#).isEmpty)
        #expect(wire.tracker.lineages().first?.credentials.first == f.access("A1"))
    }

    @Test func secondLoginStartsL2() {
        let wire = Wire()
        _ = wire.login(access: "A1", refresh: "R1", session: "S1")
        let events = wire.login(access: "B1", refresh: "BR1", session: "T1")
        #expect(events.map(\.lineage) == [LineageID(2)])
        #expect(wire.send(f.business(bearer: "B1")).lineage == LineageID(2))
        #expect(wire.send(f.business(bearer: "A1", cookie: "T1")).lineage == LineageID(2), "the newest owner wins")
        #expect(wire.tracker.lineage(of: [f.access("A1")]) == LineageID(1))
        #expect(wire.tracker.lineages().map(\.isOpen) == [true, true])
    }

    @Test func logoutClosesItsLineageWhenSent() {
        let wire = Wire()
        _ = wire.login(access: "A1", refresh: "R1", session: "S1")
        _ = wire.login(access: "B1", refresh: "BR1", session: "T1")
        let sent = wire.send(f.logout(bearer: "A1"))
        #expect(sent.role == FlowRole.logout)
        #expect(
            sent.events == [.logout(LineageID(1), presented: [f.credential(.access, "header Authorization", "A1")])])
        #expect(wire.tracker.lineages().map(\.isOpen) == [false, true], "closed before any response")
        let answered = wire.complete(sent, headers: [("Set-Cookie", "session=; Max-Age=0; Path=/")])
        #expect(answered.isEmpty, "a deletion cookie issues nothing")
        #expect(wire.send(f.logout(bearer: "A1")).events.isEmpty, "a second logout changes nothing")
        #expect(wire.send(f.business(bearer: "A1")).lineage == LineageID(1), "a closed lineage still owns its tokens")
    }

    @Test func lateRefreshResponseAfterLogoutJoinsTheClosedLineage() {
        let wire = Wire()
        _ = wire.login(access: "A1", refresh: "R1", session: "S1")
        let refresh = wire.send(f.refreshRequest("R1"))  // in flight...
        _ = wire.send(f.logout(bearer: "A1"))  // ...while the user logs out
        let events = wire.complete(refresh, json: #"{"access_token": "A2", "refresh_token": "R2"}"#)
        #expect(
            events == [
                .refresh(
                    LineageID(1), presented: [f.credential(.refresh, "form refresh_token", "R1")],
                    replaced: [f.access("A1"), f.refresh("R1")], issued: [f.access("A2"), f.refresh("R2")],
                    afterLogout: true)
            ])
        #expect(wire.tracker.lineages().first?.isOpen == false, "the late refresh does not reopen L1")
        #expect(wire.send(f.business(bearer: "A2")).lineage == LineageID(1), "using A2 is recognised as L1's")
    }

    @Test func otherResponsesIssuingCredentialsExtendTheRequestsLineage() {
        let wire = Wire()
        _ = wire.login(access: "A1", refresh: "R1", session: "S1")
        let rotate = wire.complete(wire.send(f.business(bearer: "A1")), headers: [("Set-Cookie", "session=S2; Path=/")])
        #expect(rotate == [.credentialIssued(LineageID(1), issued: [f.session("S2")], afterLogout: false)])
        let again = wire.complete(wire.send(f.business(cookie: "S2")), headers: [("Set-Cookie", "session=S2; Path=/")])
        #expect(again.isEmpty, "the same cookie again is nothing new")
        #expect(
            wire.complete(wire.send(f.business()), headers: [("Set-Cookie", "session=anon")]).isEmpty,
            "no lineage, nothing followed")
        let inFlight = wire.send(f.business(bearer: "A1"))
        _ = wire.send(f.logout(bearer: "A1"))
        let late = wire.complete(inFlight, headers: [("Set-Cookie", "session=S2")])
        #expect(
            late == [.credentialIssued(LineageID(1), issued: [f.session("S2")], afterLogout: true)],
            "after logout even a known cookie is reported")
    }

    @Test func refreshWithAnUnknownRefreshTokenStartsALineage() {
        let wire = Wire()
        let events = wire.complete(wire.send(f.refreshRequest("R-from-before")), json: #"{"access_token": "A9"}"#)
        #expect(
            events == [
                .unknownRefresh(
                    LineageID(1), presented: [f.credential(.refresh, "form refresh_token", "R-from-before")],
                    issued: [f.access("A9")])
            ])
        #expect(wire.send(f.business(bearer: "A9")).lineage == LineageID(1))
    }

    @Test func rolesFromTheProfile() {
        let tracker = Wire().tracker
        #expect(tracker.role(of: f.loginRequest()) == FlowRole.login)
        #expect(tracker.role(of: f.refreshRequest("R")) == FlowRole.refresh, "same endpoint, told apart by grant_type")
        #expect(tracker.role(of: f.logout(bearer: "A")) == FlowRole.logout)
        #expect(tracker.role(of: FlowView(method: "POST", path: "/jobs/7/complete")) == "callback")
        #expect(tracker.role(of: FlowView(method: "GET", path: "/jobs/7/complete")) == FlowRole.business)
        #expect(tracker.role(of: f.business()) == FlowRole.business)
        var unread = f.loginRequest()
        unread.body = nil
        #expect(tracker.role(of: unread) == FlowRole.business, "without the body the grant type is unknown")
        var odd = f.loginRequest()
        odd.body = Array("grant_type=client_credentials".utf8)
        #expect(tracker.role(of: odd) == FlowRole.business)
    }

    @Test func loginIsCheckedBeforeRefreshAndLogout() {
        let everything = FlowMatch(path: Glob("/**"))
        let profile = AuthProfile(
            login: [FlowMatch(path: Glob("/login"))], refresh: [everything], logout: [everything],
            roles: [
                ProfileRole(name: "first", matches: [everything]), ProfileRole(name: "second", matches: [everything]),
            ],
            file: "p.json5")
        let tracker = LineageTracker(profile: profile, fingerprint: LineageFixture.fingerprint)
        #expect(tracker.role(of: FlowView(path: "/login")) == FlowRole.login)
        #expect(tracker.role(of: FlowView(path: "/other")) == FlowRole.refresh)
        let customOnly = LineageTracker(
            profile: AuthProfile(roles: profile.roles, file: "p.json5"), fingerprint: LineageFixture.fingerprint)
        #expect(customOnly.role(of: FlowView(path: "/x")) == "first")
    }

    @Test func rawCredentialsAppearInNoEventOrListing() {
        let raw = (
            access: "eyJhbGciOiJSUzI1NiJ9.SECRET-ACCESS-111", refresh: "SECRET-REFRESH-222",
            session: "SECRET-SESSION-333",
            access2: "SECRET-ACCESS-444", refresh2: "SECRET-REFRESH-555", cookie2: "SECRET-SESSION-666"
        )
        let seen = Collector<String>()
        let wire = Wire()
        let tracker = LineageTracker(profile: LineageFixture.profile) { value in
            seen.append(value)
            return LineageFixture.fingerprint(value)
        }
        var events = wire.login(access: raw.access, refresh: raw.refresh, session: raw.session)
        let refresh = wire.send(f.refreshRequest(raw.refresh, cookie: raw.session))
        events += wire.send(f.logout(bearer: raw.access)).events
        events += wire.complete(
            refresh, json: #"{"access_token": "\#(raw.access2)", "refresh_token": "\#(raw.refresh2)"}"#)
        events += wire.complete(
            wire.send(f.business(bearer: raw.access2)), headers: [("Set-Cookie", "session=\(raw.cookie2)")])
        events += wire.complete(
            wire.send(f.refreshRequest("SECRET-UNKNOWN-777")), json: #"{"access_token": "SECRET-888"}"#)
        #expect(
            events.map(\.name) == [
                "lineage.login", "lineage.logout", "lineage.refresh", "lineage.credential-issued",
                "lineage.unknown-refresh",
            ])
        let text =
            events.map { "\($0) \(String(reflecting: $0))" }.joined()
            + "\(wire.tracker.lineages()) \(String(reflecting: wire.tracker.lineages()))"
        #expect(!text.contains("SECRET"), "\(text)")
        #expect(text.contains(f.fp(raw.access)) && text.contains(f.fp(raw.cookie2)))
        // The same extraction hands raw values to the fingerprint function and keeps nothing else.
        _ = tracker.presentedCredentials(in: f.business(bearer: raw.access, cookie: raw.session))
        #expect(seen.all == [raw.access, raw.session])
    }

    @Test func concurrentLoginsGetDistinctLineages() {
        let wire = Wire()
        let ids = Collector<LineageID>()
        Fixture.concurrently(50) { index in
            ids.append(
                contentsOf: wire.login(access: "A\(index)", refresh: "R\(index)", session: "S\(index)").map(\.lineage))
        }
        #expect(ids.all.sorted() == (1...50).map(LineageID.init))
        #expect(wire.tracker.lineages().count == 50)
    }
}
