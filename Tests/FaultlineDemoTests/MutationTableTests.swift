import FaultlineContract
import FaultlineDemo
import FaultlineTrace
import Testing

/// The checker is proven by mutation (a checker that never fails proves nothing). The correct
/// reference client passes every race; each broken variant, driven through the proxy against the
/// reference backend by its race's rules, is caught by exactly the clause it breaks. Real
/// sockets, in-process.
@Suite(.serialized) struct MutationTableTests {
    static let runner = try! DemoRunner()

    @Test(arguments: DemoCase.mutationTable)
    func eachVariantIsCaughtByExactlyItsClause(_ demoCase: DemoCase) async throws {
        let result = try await Self.runner.run(demoCase)
        let named = result.violated.sorted().map(\.rawValue)
        #expect(
            result.asExpected,
            "\(demoCase.variant) through \(demoCase.scenario.rawValue): expected \(demoCase.expected.sorted().map(\.rawValue)), checker named \(named)\n\(ReportFormatter.text(result.report, traceName: "trace"))"
        )
        #expect(result.report.traceProblems.isEmpty, "\(result.report.traceProblems)")
    }

    /// The correct client passes the late-refresh race *because* revoking is cleanup, not because
    /// it never touched the late tokens: its trace shows both revocations, each presenting a
    /// credential the refresh issued after the logout.
    @Test func correctClientRevokesTheTokensOfALateRefresh() async throws {
        let result = try await Self.runner.run(DemoCase([], .lateRefresh, expected: []))
        #expect(result.report.passed, "\(ReportFormatter.text(result.report, traceName: "trace"))")
        let events = result.trace.events
        let lateRefresh = try #require(events.first { $0.kind.rawValue == "lineage.refresh" })
        #expect(lateRefresh.bool("after_logout") == true)
        let late = Set(lateRefresh.strings("issued") ?? [])
        let revocations = events.filter { $0.kind.rawValue == "request.received" && $0.string("role") == "revoke" }
        // What happened, in order, should this fail: each event's kind, and a request's role and path.
        let story = events.map { event in
            [
                event.kind.rawValue, event.string("role") ?? "", event.string("path") ?? "",
                event.int("status").map(String.init) ?? "",
            ]
            .filter { !$0.isEmpty }.joined(separator: " ")
        }.joined(separator: "\n")
        #expect(revocations.count == 2, "\(story)")
        let presented = Set(revocations.flatMap { $0.strings("credentials") ?? [] })
        #expect(presented == late && late.count == 2, "revoked \(presented), late refresh issued \(late)")
        #expect(revocations.allSatisfy { $0.seq > lateRefresh.seq })
        #expect(events.contains { $0.kind.rawValue == "lineage.revoked" })
    }

    /// The token race is staged, not left to the machine's pace: the first two 401s are held
    /// until the third arrives, so every call was on the wire with the expired token before the
    /// client heard of it, and each hold ends by the third 401's rule.
    @Test func theTokenRaceHoldsTheFirst401sUntilTheThird() async throws {
        let result = try await Self.runner.run(DemoCase(.noSingleFlight, .tokenRace, expected: [.singleFlightRefresh]))
        let events = result.trace.events
        let ended = events.filter { $0.kind.rawValue == "hold.ended" && $0.string("name") == "token-race" }
        #expect(ended.count == 2, "holds ended: \(ended.map { $0.string("ended_by") ?? "" })")
        #expect(ended.allSatisfy { $0.string("release_on") == "rule:third-401" })
        let calls = events.filter {
            $0.kind.rawValue == "request.received" && ($0.string("path") ?? "").hasPrefix("/v1/")
        }
        let first401 = try #require(
            events.first { $0.kind.rawValue == "response.delivered" && $0.int("status") == 401 })
        #expect(calls.prefix(3).allSatisfy { $0.seq < first401.seq })
    }
}
