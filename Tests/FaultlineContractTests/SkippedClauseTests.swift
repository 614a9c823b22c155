import FaultlineContract
import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// A check that could not run is not a pass: the clauses that need lineages are skipped with a
/// reason that is true for this trace, and every format says which and why.
@Suite struct SkippedClauseTests {
    static let lineageClauses: [ClauseID] = [.singleFlightRefresh, .noStaleRefresh, .logoutBoundary, .noReactivation]

    /// The reason each lineage clause was skipped for; fails unless all four were skipped alike.
    static func reason(_ trace: TraceBuilder) throws -> String {
        let report = try trace.check()
        let skipped = report.clausesSkipped.filter { lineageClauses.contains($0.clause) }
        #expect(skipped.map(\.clause) == lineageClauses, "\(report.clausesSkipped)")
        let reasons = Set(skipped.map(\.reason))
        #expect(reasons.count == 1)
        return try #require(reasons.first)
    }

    static func rulesLoaded(_ trace: inout TraceBuilder, profile: Bool, reload: Bool = false) {
        trace.event(reload ? "rules.reloaded" : "rules.loaded", ["scenarios": 1, "rules": 2, "profile": profile])
    }

    @Test func aProxyWithoutRulesHasNoProfile() throws {
        var trace = TraceBuilder()
        trace.exchange("GET", "/v1/messages", status: 200, profile: false)
        #expect(try Self.reason(trace).hasPrefix("no auth profile in this trace: the proxy ran without rules"))
    }

    @Test func rulesWithoutAProfileSayNoProfile() throws {
        var trace = TraceBuilder()
        Self.rulesLoaded(&trace, profile: false)
        trace.exchange("GET", "/v1/messages", status: 200)  // role business: every request, without a profile
        #expect(try Self.reason(trace).hasPrefix("no auth profile in this trace: the proxy's rules had none"))
    }

    @Test func aLoadedProfileWithoutALoginSaysSo() throws {
        var trace = TraceBuilder()
        Self.rulesLoaded(&trace, profile: true)
        trace.exchange("GET", "/v1/messages", status: 401)
        #expect(try Self.reason(trace) == "an auth profile was loaded, but no login was seen, so no lineage started")
    }

    @Test func aProfileLoadedByAReloadCounts() throws {
        var trace = TraceBuilder()
        Self.rulesLoaded(&trace, profile: false)
        Self.rulesLoaded(&trace, profile: true, reload: true)
        trace.exchange("GET", "/v1/messages", status: 401)
        #expect(try Self.reason(trace).hasPrefix("an auth profile was loaded, but no login was seen"))
    }

    /// A profile loaded at start and removed by a reload was still loaded for part of the trace.
    @Test func aProfileRemovedByAReloadWasStillLoaded() throws {
        var trace = TraceBuilder()
        Self.rulesLoaded(&trace, profile: true)
        trace.exchange("GET", "/v1/messages", status: 401)
        Self.rulesLoaded(&trace, profile: false, reload: true)
        #expect(try Self.reason(trace).hasPrefix("an auth profile was loaded, but no login was seen"))
    }

    /// An app that logged in before the proxy started presents tokens no lineage owns: the
    /// profile found them, but there is no lineage to judge.
    @Test func credentialsFromBeforeTheTraceStartNoLineage() throws {
        var trace = TraceBuilder()
        trace.exchange("GET", "/v1/messages", status: 200, credentials: ["access:old"])
        trace.exchange("POST", "/logout", status: 200, role: "logout", credentials: ["access:old"])
        trace.exchange("GET", "/v1/messages", status: 200, credentials: ["access:old"])
        #expect(
            try Self.reason(trace)
                == "an auth profile was loaded, but no login was seen (requests presented credentials issued before this trace), so no lineage started"
        )
    }

    /// Refreshes of no known lineage are still judged for single flight, by their refresh token.
    @Test func refreshesWithoutALineageAreJudgedForSingleFlight() throws {
        var trace = TraceBuilder()
        Self.rulesLoaded(&trace, profile: true)
        let first = trace.startRefresh(nil, refresh: "old")
        let second = trace.startRefresh(nil, refresh: "old")
        trace.deliver(first.flow, 400)
        trace.deliver(second.flow, 400)
        let report = try trace.check()
        #expect(report.brokenClauses == [.singleFlightRefresh], "\(report.violations)")
        #expect(report.clausesSkipped.map(\.clause).contains(.logoutBoundary))
        // One refresh alone: judged, and it holds.
        var single = TraceBuilder()
        Self.rulesLoaded(&single, profile: true)
        let only = single.startRefresh(nil, refresh: "old")
        single.deliver(only.flow, 400)
        let held = try single.check()
        #expect(held.clausesChecked.contains(.singleFlightRefresh), "\(held.clausesSkipped)")
        #expect(
            held.clausesSkipped.map(\.clause) == [
                .noStaleRefresh, .logoutBoundary, .noReactivation, .exactlyOnce, .dependencyRespected,
            ])
    }

    /// Login requests that all failed started no lineage: nothing to judge, and the reason counts them.
    @Test func failedLoginsAreNotALogin() throws {
        var trace = TraceBuilder()
        Self.rulesLoaded(&trace, profile: true)
        trace.exchange("POST", "/oauth/token", status: 401, role: "login")
        trace.exchange("POST", "/oauth/token", status: 401, role: "login")
        #expect(
            try Self.reason(trace)
                == "an auth profile was loaded and 2 login requests were seen, but no login succeeded, so no lineage started"
        )
    }

    /// A trace written before `rules.loaded` existed: a role other than business still proves a
    /// profile; business roles alone cannot tell, and the reason says it cannot.
    @Test func oldTracesGetAnHonestFallback() throws {
        var withLogin = TraceBuilder()
        withLogin.exchange("POST", "/oauth/token", status: 400, role: "login")
        #expect(try Self.reason(withLogin).hasPrefix("an auth profile was loaded and 1 login request was seen"))
        var businessOnly = TraceBuilder()
        businessOnly.exchange("GET", "/v1/messages", status: 200)
        #expect(
            try Self.reason(businessOnly).hasPrefix(
                "no login was seen, and this trace does not say whether an auth profile was loaded"))
    }

    @Test func aLoginMeansTheClausesAreChecked() throws {
        var trace = TraceBuilder()
        Self.rulesLoaded(&trace, profile: true)
        trace.login("L1", access: "a1", refresh: "r1")
        let report = try trace.check()
        for clause in Self.lineageClauses { #expect(report.clausesChecked.contains(clause)) }
    }

    // MARK: Every format says which clauses could not be checked, and why

    static func profileWithoutLogin() -> TraceBuilder {
        var trace = TraceBuilder()
        rulesLoaded(&trace, profile: true)
        trace.exchange("GET", "/v1/messages", status: 200)
        return trace
    }

    @Test func theTextVerdictIsNotAPlainPass() throws {
        let report = try Self.profileWithoutLogin().check()
        #expect(report.passed, "no violation: only the skips keep it from a full pass")
        let text = ReportFormatter.text(report, traceName: "t.jsonl")
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("contract: built-in default (") == true)
        let first = try #require(lines.dropFirst().first)
        // The four clauses checked met nothing to judge: one GET answered 200, no credential.
        #expect(
            first.hasPrefix(
                "t.jsonl: PASSED IN PART: 6 enabled clauses could not be checked (single-flight-refresh, no-stale-refresh, logout-boundary, no-reactivation, exactly-once, dependency-respected); 0 clauses held (4 had nothing to judge (bounded-retry, account-isolation, replay-safe-retry, retry-after-respected); "
            ), "\(first)")
        #expect(!first.hasPrefix("t.jsonl: PASSED:"))
        #expect(
            text.contains(
                "  ? logout-boundary: not checked, an auth profile was loaded, but no login was seen, so no lineage started"
            ))
        #expect(text.contains("  ? exactly-once: not checked, the contract declares no callbacks"))
    }

    @Test func aFailedVerdictAlsoCountsTheUncheckedClauses() throws {
        var trace = Self.profileWithoutLogin()
        for _ in 0..<3 { trace.exchange("GET", "/v1/messages", status: 401) }
        let first = ReportFormatter.verdict(try trace.check(), traceName: nil)
        #expect(
            first.hasPrefix("FAILED: 1 violation of bounded-retry; 6 enabled clauses could not be checked ("),
            "\(first)")
    }

    @Test func everyCheckedClauseGivesAPlainPass() throws {
        var contract = Contract.default
        contract.enabledClauses.subtract([.exactlyOnce, .dependencyRespected])
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        let verdict = ReportFormatter.verdict(try trace.check(contract), traceName: nil)
        // A login alone exercises no clause: each is named as having had nothing to judge.
        #expect(
            verdict.hasPrefix(
                "PASSED: the trace holds the contract (0 clauses held; 8 had nothing to judge (single-flight-refresh, no-stale-refresh, bounded-retry, logout-boundary, account-isolation, no-reactivation, replay-safe-retry, retry-after-respected); 2 disabled; "
            ), "\(verdict)")
    }

    @Test func jsonNamesTheSkippedClausesAndWhy() throws {
        let json = ReportFormatter.json(try Self.profileWithoutLogin().check())
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let skipped = try #require(object["clausesSkipped"] as? [[String: String]])
        #expect(
            skipped.map { $0["clause"] } == Self.lineageClauses.map(\.rawValue) + [
                "exactly-once", "dependency-respected",
            ])
        #expect(skipped.first?["reason"] == "an auth profile was loaded, but no login was seen, so no lineage started")
        // Missing trace data is told apart from a contract that declares nothing to check.
        #expect(
            skipped.map { $0["cause"] } == Array(repeating: "missing-data", count: 4) + [
                "nothing-declared", "nothing-declared",
            ])
    }

    @Test func aReportWithoutCausesReadsAsMissingData() throws {
        let old = #"{"clause":"logout-boundary","reason":"no profile"}"#
        let entry = try JSONDecoder().decode(ContractReport.SkippedClause.self, from: Data(old.utf8))
        #expect(entry.cause == .missingData)
    }

    @Test func junitMakesThemSkippedCasesWithTheReason() throws {
        let xml = ReportFormatter.junit(try Self.profileWithoutLogin().check())
        let parser = XMLParser(data: Data(xml.utf8))
        let reader = ReportFormatTests.JUnitReader()
        parser.delegate = reader
        #expect(parser.parse(), "\(xml)")
        #expect(
            reader.skipMessages["logout-boundary"]
                == "an auth profile was loaded, but no login was seen, so no lineage started")
        #expect(reader.skipMessages["exactly-once"] == "the contract declares no callbacks")
        // One GET answered 200 gives bounded-retry nothing to judge: skipped too, never passed.
        #expect(reader.skipMessages["bounded-retry"] == "nothing to judge: no business request was answered 401")
        #expect(xml.contains(#"<testsuites name="faultline check" tests="11" failures="0" skipped="10">"#))

        // A 401 gives it something to judge: a plain test case then.
        var rejected = Self.profileWithoutLogin()
        rejected.exchange("GET", "/v1/messages", status: 401)
        let judged = ReportFormatter.junit(try rejected.check())
        let judgedReader = ReportFormatTests.JUnitReader()
        let judgedParser = XMLParser(data: Data(judged.utf8))
        judgedParser.delegate = judgedReader
        #expect(judgedParser.parse(), "\(judged)")
        #expect(judgedReader.skipMessages["bounded-retry"] == nil)
        #expect(judged.contains(#"name="bounded-retry"/>"#), "\(judged)")
    }
}
