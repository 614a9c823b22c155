import FaultlineContract
import Testing

/// Revoking is not using: a logout or an RFC 7009 revocation presenting a late credential (issued
/// after the logout) or one of a closed lineage is cleanup, judged by neither no-reactivation nor
/// logout-boundary; any other request presenting it stays a violation.
@Suite struct CleanupRequestTests {
    /// L1 logs in, a 401 starts a refresh, the user logs out, and the refresh completes after the
    /// logout with a2/r2 (late credentials of the closed lineage L1).
    static func lateRefresh() -> TraceBuilder { CredentialClauseTests.logoutDuringRefresh(.nothing).0 }

    @Test func revokingTheLateTokensPasses() throws {
        var trace = Self.lateRefresh()
        trace.revoke("L1", tokens: ["refresh:r2"], afterLogout: true)
        trace.revoke("L1", tokens: ["access:a2"], afterLogout: true)
        let report = try trace.check()
        #expect(report.violations.isEmpty, "\(report.violations)")
        #expect(report.clausesChecked.contains(.noReactivation) && report.clausesChecked.contains(.logoutBoundary))
    }

    @Test func revokingTheLateTokensPassesWhenReactivationIsOff() throws {
        var trace = Self.lateRefresh()
        trace.revoke("L1", tokens: ["refresh:r2"], afterLogout: true)
        var contract = Contract.default
        contract.enabledClauses.remove(.noReactivation)
        #expect(try trace.check(contract).violations.isEmpty)
    }

    @Test func aBusinessRequestPresentingThemIsReactivation() throws {
        var trace = Self.lateRefresh()
        trace.revoke("L1", tokens: ["refresh:r2"], afterLogout: true)
        let use = trace.exchange("GET", "/v1/messages", status: 200, lineage: "L1", credentials: ["access:a2"])
        let report = try trace.check()
        #expect(report.brokenClauses == [.noReactivation], "\(report.violations)")
        #expect(report.violations.first?.details["request_seq"] == String(use.seq))
    }

    @Test func aLogoutPresentingThemPasses() throws {
        var trace = Self.lateRefresh()
        trace.logout("L1", credentials: ["access:a2", "refresh:r2"])
        let report = try trace.check()
        #expect(report.violations.isEmpty, "\(report.violations)")
    }

    @Test func revokingACredentialOfAClosedLineagePasses() throws {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        trace.logout("L1", credentials: ["access:a1"])
        trace.revoke("L1", tokens: ["refresh:r1"], afterLogout: true)
        #expect(try trace.check().violations.isEmpty)
        // The same refresh token presented by a refresh is still a refresh after the logout.
        var refreshing = TraceBuilder()
        refreshing.login("L1", access: "a1", refresh: "r1")
        refreshing.logout("L1", credentials: ["access:a1"])
        _ = refreshing.startRefresh("L1", refresh: "r1")
        #expect(try refreshing.check().brokenClauses == [.logoutBoundary])
    }

    /// A revocation the server refused (RFC 7009 §2.2.1: 401 invalid_client) is tried again; it
    /// is not a business request, so bounded-retry does not follow it.
    @Test func revocationsAreNotFollowedByTheRetryClauses() throws {
        var trace = Self.lateRefresh()
        for _ in 0..<3 { trace.revoke("L1", tokens: ["refresh:r2"], status: 401, afterLogout: true) }
        #expect(try trace.check().violations.isEmpty)
    }

    /// A trace whose only profile data is a `lineage.revoked` event still has profile data.
    @Test func aRevokedEventIsProfileData() throws {
        var trace = TraceBuilder()
        trace.event(
            "lineage.revoked",
            [
                "lineage": "L1", "revoked": TraceBuilder.credentials(["refresh:r1"]),
                "after_logout": false,
            ])
        let report = try trace.check()
        let skipped = report.clausesSkipped.map(\.clause)
        #expect(!skipped.contains(.logoutBoundary) && !skipped.contains(.noReactivation), "\(skipped)")
        #expect(report.lineages == ["L1"])
    }
}
