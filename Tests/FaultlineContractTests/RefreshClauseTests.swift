import FaultlineContract
import Testing

/// single-flight-refresh and no-stale-refresh on the token-refresh article's stories.
@Suite struct RefreshClauseTests {
    /// Three screens get 401 for a1; one refresh runs; all three retry with a2.
    static func correctThreeScreens() -> TraceBuilder {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        let screens = ["/v1/messages", "/v1/avatar", "/v1/count"].map {
            trace.request("GET", $0, lineage: "L1", credentials: ["access:a1"]).flow
        }
        for flow in screens { trace.forward(flow) }
        trace.deliver(screens[0], 401)
        let refresh = trace.startRefresh("L1", refresh: "r1")
        trace.deliver(screens[1], 401)
        trace.deliver(screens[2], 401)
        trace.finishRefresh(
            refresh.flow, lineage: "L1", presented: "r1", replacing: ["access:a1", "refresh:r1"], access: "a2",
            refresh: "r2")
        for path in ["/v1/messages", "/v1/avatar", "/v1/count"] {
            trace.exchange("GET", path, status: 200, lineage: "L1", credentials: ["access:a2"])
        }
        return trace
    }

    @Test func oneSharedRefreshPasses() throws {
        let report = try Self.correctThreeScreens().check()
        #expect(report.violations.isEmpty, "\(report.violations)")
        #expect(report.clausesChecked.contains(.singleFlightRefresh))
        #expect(report.clausesChecked.contains(.noStaleRefresh))
        #expect(report.passed)
    }

    @Test func overlappingRefreshesOfOneLineageFail() throws {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        let first = trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a1"])
        _ = first
        let refreshA = trace.startRefresh("L1", refresh: "r1")
        trace.exchange("GET", "/v1/avatar", status: 401, lineage: "L1", credentials: ["access:a1"])
        let refreshB = trace.startRefresh("L1", refresh: "r1")
        trace.finishRefresh(
            refreshA.flow, lineage: "L1", presented: "r1", replacing: ["access:a1"], access: "a2", refresh: "r2")
        trace.deliver(refreshB.flow, 400)
        let report = try trace.check()
        let violations = report.violations(of: .singleFlightRefresh)
        try #require(violations.count == 1, "\(report.violations)")
        #expect(violations[0].witnesses.contains(refreshA.seq))
        #expect(violations[0].witnesses.contains(refreshB.seq))
        #expect(violations[0].summary.contains("second refresh of lineage L1 at seq \(refreshB.seq)"))
        #expect(violations[0].summary.contains("same refresh token"))
        #expect(violations[0].lineage == "L1")
        // The overlapping one is marked as the offender in the timeline.
        #expect(violations[0].timeline.first { $0.seq == refreshB.seq }?.marker == .offending)
        #expect(report.brokenClauses == [.singleFlightRefresh])
    }

    @Test func refreshTokenPresentedTwiceFails() throws {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a1"])
        let first = trace.startRefresh("L1", refresh: "r1")
        trace.abort(first.flow)  // forwarded, then the client gave up: the server may have rotated r1
        let second = trace.startRefresh("L1", refresh: "r1")
        trace.finishRefresh(
            second.flow, lineage: "L1", presented: "r1", replacing: ["access:a1"], access: "a2", refresh: "r2")
        let violations = try trace.check().violations(of: .singleFlightRefresh)
        try #require(violations.count == 1)
        #expect(violations[0].summary.contains("already presented"))
        #expect(violations[0].witnesses == [first.seq, second.seq])
    }

    /// A client without single flight: three refreshes with the same refresh token, the third
    /// after the first completed. One diagnosis per refresh: single-flight, not also stale.
    @Test func reusedRefreshTokenIsNotAlsoJudgedStale() throws {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a1"])
        let first = trace.startRefresh("L1", refresh: "r1")
        trace.exchange("GET", "/v1/avatar", status: 401, lineage: "L1", credentials: ["access:a1"])
        trace.finishRefresh(
            first.flow, lineage: "L1", presented: "r1", replacing: ["access:a1", "refresh:r1"], access: "a2",
            refresh: "r2")
        let again = trace.startRefresh("L1", refresh: "r1")
        trace.deliver(again.flow, 400)
        let report = try trace.check()
        #expect(report.brokenClauses == [.singleFlightRefresh], "\(report.violations)")
    }

    @Test func refreshTokenNeverForwardedMayBeSentAgain() throws {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a1"])
        let first = trace.startRefresh("L1", refresh: "r1", forward: false)
        trace.deliver(first.flow, 502, synthetic: true)  // the proxy could not reach the server
        let second = trace.startRefresh("L1", refresh: "r1")
        trace.finishRefresh(
            second.flow, lineage: "L1", presented: "r1", replacing: ["access:a1"], access: "a2", refresh: "r2")
        #expect(try trace.check().violations.isEmpty)
    }

    /// The article's boundary case: a 401 for a1 arrives after the refresh finished.
    static func lateRejection(secondRefresh: Bool) -> (TraceBuilder, lateAnswer: UInt64, second: UInt64?) {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        let slow = trace.request("GET", "/v1/count", lineage: "L1", credentials: ["access:a1"]).flow
        trace.forward(slow)
        trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a1"])
        let refresh = trace.startRefresh("L1", refresh: "r1")
        trace.finishRefresh(
            refresh.flow, lineage: "L1", presented: "r1", replacing: ["access:a1", "refresh:r1"], access: "a2",
            refresh: "r2")
        let lateAnswer = trace.deliver(slow, 401)  // late 401 for the replaced token
        var second: UInt64?
        if secondRefresh {
            let started = trace.startRefresh("L1", refresh: "r2")
            second = started.seq
            trace.finishRefresh(
                started.flow, lineage: "L1", presented: "r2", replacing: ["access:a2", "refresh:r2"], access: "a3",
                refresh: "r3")
        }
        trace.exchange(
            "GET", "/v1/count", status: 200, lineage: "L1", credentials: [secondRefresh ? "access:a3" : "access:a2"])
        return (trace, lateAnswer, second)
    }

    @Test func lateRejectionOfReplacedTokenStartsNoRefresh() throws {
        let (trace, _, _) = Self.lateRejection(secondRefresh: false)
        let report = try trace.check()
        #expect(report.violations.isEmpty, "\(report.violations)")
    }

    @Test func refreshAfterLateRejectionIsStale() throws {
        let (trace, lateAnswer, second) = Self.lateRejection(secondRefresh: true)
        let report = try trace.check()
        let violations = report.violations(of: .noStaleRefresh)
        try #require(violations.count == 1, "\(report.violations)")
        let secondSeq = try #require(second)
        #expect(violations[0].summary.contains("at seq \(secondSeq) after the 401 at seq \(lateAnswer)"))
        #expect(violations[0].summary.contains("had already replaced"))
        #expect(violations[0].witnesses.contains(lateAnswer))
        #expect(violations[0].timeline.first { $0.seq == secondSeq }?.marker == .offending)
        #expect(report.brokenClauses == [.noStaleRefresh])
    }

    @Test func rejectionOfCurrentTokenJustifiesTheNextRefresh() throws {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a1"])
        let first = trace.startRefresh("L1", refresh: "r1")
        trace.exchange("GET", "/v1/count", status: 401, lineage: "L1", credentials: ["access:a1"])  // joined the flight
        trace.finishRefresh(
            first.flow, lineage: "L1", presented: "r1", replacing: ["access:a1"], access: "a2", refresh: "r2")
        trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a2"])  // a2 expired too
        let second = trace.startRefresh("L1", refresh: "r2")
        trace.finishRefresh(
            second.flow, lineage: "L1", presented: "r2", replacing: ["access:a2"], access: "a3", refresh: "r3")
        #expect(try trace.check().violations.isEmpty)
    }

    @Test func withoutProfileDataRefreshClausesAreSkipped() throws {
        var trace = TraceBuilder()
        trace.exchange("GET", "/v1/messages", status: 200, profile: false)
        let report = try trace.check()
        #expect(report.passed)
        let skipped = report.clausesSkipped.map(\.clause)
        #expect(skipped.contains(.singleFlightRefresh) && skipped.contains(.noStaleRefresh))
        #expect(skipped.contains(.logoutBoundary) && skipped.contains(.noReactivation))
        #expect(report.clausesChecked.contains(.boundedRetry) && report.clausesChecked.contains(.accountIsolation))
    }
}
