import FaultlineContract
import Testing

/// logout-boundary, account-isolation and no-reactivation, on the token-refresh and
/// cookie-isolation articles' stories.
@Suite struct CredentialClauseTests {
    @Test func requestsBeforeLogoutAndNoneAfterPass() throws {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1", session: "s1")
        trace.exchange("GET", "/v1/messages", status: 200, lineage: "L1", credentials: ["access:a1", "session:s1"])
        trace.logout("L1", credentials: ["access:a1", "session:s1"])
        trace.exchange("GET", "/v1/public", status: 200)  // anonymous after logout
        let report = try trace.check()
        #expect(report.passed, "\(report.violations)")
        #expect(report.lineages == ["L1"])
    }

    @Test func oldTokenAfterLogoutBreaksTheBoundary() throws {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        let logout = trace.logout("L1", credentials: ["access:a1"])
        let late = trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a1"])
        let report = try trace.check()
        let violations = report.violations(of: .logoutBoundary)
        try #require(violations.count == 1, "\(report.violations)")
        let distance = late.seq - logout
        #expect(
            violations[0].summary
                == "GET /v1/messages was sent at seq \(late.seq) with an access token of lineage L1, \(distance) events after L1's logout at seq \(logout)"
        )
        #expect(violations[0].witnesses.contains(logout) && violations[0].witnesses.contains(late.seq))
        let offending = try #require(violations[0].timeline.first { $0.seq == late.seq })
        #expect(offending.marker == .offending)
        #expect(offending.status == 401)  // filled in when the flow ended, after the violation was found
        #expect(violations[0].timeline.first { $0.seq == logout }?.marker == .boundary)
        #expect(report.brokenClauses == [.logoutBoundary])
    }

    @Test func refreshStartedAfterLogoutBreaksTheBoundary() throws {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        trace.logout("L1", credentials: ["access:a1"])
        let refresh = trace.startRefresh("L1", refresh: "r1")
        trace.deliver(refresh.flow, 400)
        let violations = try trace.check().violations(of: .logoutBoundary)
        try #require(violations.count == 1)
        #expect(violations[0].summary.hasPrefix("A refresh of lineage L1 started after its logout"))
    }

    /// Logout between refresh start and completion: the late refresh's tokens are L1's, issued
    /// after the boundary. `use` picks what the client does afterwards.
    enum AfterLateRefresh { case nothing, lateToken, oldToken }

    static func logoutDuringRefresh(_ use: AfterLateRefresh) -> (TraceBuilder, offending: UInt64?) {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a1"])
        let refresh = trace.startRefresh("L1", refresh: "r1")
        trace.logout("L1", credentials: ["access:a1"])
        trace.finishRefresh(
            refresh.flow, lineage: "L1", presented: "r1", replacing: ["access:a1"], access: "a2", refresh: "r2",
            afterLogout: true)
        switch use {
        case .nothing: return (trace, nil)
        case .lateToken:
            let seq = trace.exchange("GET", "/v1/messages", status: 200, lineage: "L1", credentials: ["access:a2"]).seq
            return (trace, seq)
        case .oldToken:
            let seq = trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a1"]).seq
            return (trace, seq)
        }
    }

    @Test func lateRefreshResultDiscardedPasses() throws {
        let report = try Self.logoutDuringRefresh(.nothing).0.check()
        #expect(report.violations.isEmpty, "\(report.violations)")
    }

    @Test func lateRefreshTokenUsedIsReactivation() throws {
        let (trace, offending) = Self.logoutDuringRefresh(.lateToken)
        let report = try trace.check()
        #expect(report.brokenClauses == [.noReactivation], "\(report.violations)")
        let violation = try #require(report.violations.first)
        #expect(violation.summary.contains("that a refresh response delivered at seq"))
        #expect(violation.summary.contains("after L1's logout"))
        #expect(violation.witnesses.contains(try #require(offending)))
    }

    @Test func lateRefreshTokenFallsToLogoutBoundaryWhenReactivationIsOff() throws {
        let (trace, _) = Self.logoutDuringRefresh(.lateToken)
        var contract = Contract.default
        contract.enabledClauses.remove(.noReactivation)
        let report = try trace.check(contract)
        // The boundary covers credentials that arrive in late responses too (logout-boundary,
        // Rules/contracts/README.md).
        #expect(report.brokenClauses == [.logoutBoundary], "\(report.violations)")
        #expect(report.clausesDisabled == [.noReactivation])
    }

    @Test func oldTokenAfterLogoutDuringRefreshIsTheBoundary() throws {
        let (trace, _) = Self.logoutDuringRefresh(.oldToken)
        #expect(try trace.check().brokenClauses == [.logoutBoundary])
    }

    @Test func lateSetCookieUsedIsReactivation() throws {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1", session: "s1")
        let held = trace.request("GET", "/v1/profile", lineage: "L1", credentials: ["access:a1", "session:s1"]).flow
        trace.forward(held)
        trace.logout("L1", credentials: ["access:a1", "session:s1"])
        trace.deliver(held, 200)  // released after logout, with a Set-Cookie
        trace.event(
            "lineage.credential-issued", flow: held,
            ["lineage": "L1", "issued": TraceBuilder.credentials(["session:s1b"]), "after_logout": true])
        trace.login("L2", access: "b1", refresh: "q1", session: "t1")
        let mixed = trace.exchange(
            "GET", "/v1/messages", status: 200, lineage: "L2", credentials: ["access:b1", "session:s1b"])
        let report = try trace.check()
        #expect(report.brokenClauses == [.noReactivation], "\(report.violations)")
        #expect(report.violations[0].summary.contains("a session cookie of lineage L1"))
        #expect(report.violations[0].witnesses.contains(mixed.seq))
    }

    /// The injected Set-Cookie of Rules/inject-set-cookie-after-logout.json5: the *old* session's
    /// own cookie set again after logout. Used afterwards, it was brought back by a late response:
    /// reactivation.
    @Test func oldCookieSetAgainAfterLogoutAndUsedIsReactivation() throws {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1", session: "s1")
        let held = trace.request("GET", "/v1/messages", lineage: "L1", credentials: ["session:s1"]).flow
        trace.forward(held)
        trace.logout("L1", credentials: ["access:a1", "session:s1"])
        trace.deliver(held, 200)
        trace.event(
            "lineage.credential-issued", flow: held,
            ["lineage": "L1", "issued": TraceBuilder.credentials(["session:s1"]), "after_logout": true])
        trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["session:s1"])
        let report = try trace.check()
        #expect(report.brokenClauses == [.noReactivation], "\(report.violations)")
    }

    /// Without the late Set-Cookie, the same use is merely crossing the boundary.
    @Test func oldCookieKeptAfterLogoutIsTheBoundary() throws {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1", session: "s1")
        trace.logout("L1", credentials: ["access:a1", "session:s1"])
        trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["session:s1"])
        #expect(try trace.check().brokenClauses == [.logoutBoundary])
    }

    @Test func accountACookieOnAccountBRequestBreaksIsolation() throws {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1", session: "s1")
        trace.logout("L1", credentials: ["access:a1", "session:s1"])
        trace.login("L2", access: "b1", refresh: "q1", session: "t1")
        let request = trace.exchange(
            "GET", "/v1/account", status: 200, lineage: "L2", credentials: ["access:b1", "session:s1"])
        let report = try trace.check()
        // Blamed on isolation only, though the cookie also crosses L1's logout boundary.
        #expect(report.brokenClauses == [.accountIsolation], "\(report.violations)")
        #expect(
            report.violations[0].summary
                == "GET /v1/account was sent at seq \(request.seq) with an access token of lineage L2 and a session cookie of lineage L1"
        )
    }

    @Test func separateSessionsPerAccountPass() throws {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1", session: "s1")
        trace.exchange("GET", "/v1/account", status: 200, lineage: "L1", credentials: ["access:a1", "session:s1"])
        trace.logout("L1", credentials: ["access:a1", "session:s1"])
        trace.login("L2", access: "b1", refresh: "q1", session: "t1")
        trace.exchange("GET", "/v1/account", status: 200, lineage: "L2", credentials: ["access:b1", "session:t1"])
        #expect(try trace.check().passed)
    }

    @Test func withoutProfileTwoValuesOfOneCookieBreakIsolation() throws {
        var trace = TraceBuilder()
        let cookie = "session=\(TraceBuilder.fp("s1")); session=\(TraceBuilder.fp("t1"))"
        let request = trace.exchange("GET", "/v1/account", status: 200, headers: [("Cookie", cookie)], profile: false)
        let report = try trace.check()
        #expect(report.brokenClauses == [.accountIsolation])
        #expect(report.violations[0].summary.contains("two different values of cookie 'session'"))
        #expect(report.violations[0].witnesses == [request.seq])
    }

    @Test func proxyDuplicatesAreNotTheClientsRequests() throws {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        let original = trace.exchange("GET", "/v1/messages", status: 200, lineage: "L1", credentials: ["access:a1"])
        trace.logout("L1", credentials: ["access:a1"])
        // A copy the proxy sends after the logout (a duplicate action) carries L1's token too.
        trace.request("GET", "/v1/messages", lineage: "L1", credentials: ["access:a1"], duplicateOf: original.flow)
        #expect(try trace.check().passed)
    }
}
