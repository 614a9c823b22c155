import FaultlineContract
import FaultlineExplore
import FaultlineExplorer
import Foundation
import Testing

@testable import FaultlineDemo

/// The mutation table under exploration (`faultline demo --explore`): no rule orders anything,
/// the scheduler does. Each broken variant whose flaw depends on order is found within a bounded
/// number of schedules for seeds 1 to 5; the correct client passes every schedule; a replayed
/// schedule gives the same order and verdict every time; a failing schedule shrinks to the
/// deviations the flaw needs and still fails.
///
/// The settle window is 5 ms and a wait at most 60 ms here (the command's defaults are 25 ms and
/// 1 s) so that the suite stays within CI's time, except where a schedule is replayed (40 ms, so
/// that a loaded machine does not decide before the client's next request); `FAULTLINE_EXPLORE_SCHEDULES=200` runs the
/// correct client through 200 schedules of each strategy per race, as the issue asks of a full run.
@Suite(.serialized) struct ExploredRacesTests {
    static let settings = ExploreScheduler.Settings(settle: .milliseconds(5), maxWait: .milliseconds(60))
    /// For replays: a settle window long enough that a loaded machine (CI runs suites side by
    /// side on two cores) still sees the client's next request before it decides, so the
    /// pending sets, and with them the choices' meaning, are the recorded ones.
    static let steady = ExploreScheduler.Settings(settle: .milliseconds(40), maxWait: .milliseconds(400))

    static let orderDependent = DemoCase.mutationTable.filter { !$0.flaws.isEmpty && $0.scenario.dependsOnOrder }

    static func options(
        _ strategy: StrategyKind, seed: UInt64, schedules: Int, settings: ExploreScheduler.Settings = settings
    ) -> ExploreOptions {
        var options = ExploreOptions(
            strategy: strategy, seed: seed, schedules: schedules, shrinkRuns: 0, settings: settings)
        options.stopAtFirstFailure = true
        return options
    }

    @Test(arguments: orderDependent)
    func eachOrderDependentFlawIsFound(_ demoCase: DemoCase) async throws {
        let runner = try DemoRunner()
        defer { runner.stop() }
        for (strategy, bound) in [(StrategyKind.pct(depth: 3), 50), (.random, 200)] {
            for seed: UInt64 in 1...5 {
                let report = await runner.explore(
                    demoCase, options: Self.options(strategy, seed: seed, schedules: bound))
                #expect(report.problem == nil, "\(report.problem ?? "")")
                let found = Set(report.findings.map(\.clause))
                #expect(
                    !found.isDisjoint(with: demoCase.exploreExpected),
                    "\(demoCase.variant) through \(demoCase.scenario.rawValue), \(strategy) seed \(seed): found \(found.map(\.rawValue)) in \(report.runs.count) schedules"
                )
            }
        }
    }

    @Test(arguments: DemoScenario.allCases)
    func theCorrectClientPassesEverySchedule(_ scenario: DemoScenario) async throws {
        let full = ProcessInfo.processInfo.environment["FAULTLINE_EXPLORE_SCHEDULES"].flatMap(Int.init)
        let schedules = full ?? (scenario.dependsOnOrder ? 40 : 5)
        let runner = try DemoRunner()
        defer { runner.stop() }
        for strategy in [StrategyKind.pct(depth: 3), .random] {
            var options = Self.options(strategy, seed: 1, schedules: schedules)
            options.stopAtFirstFailure = false
            let report = await runner.explore(DemoCase([], scenario, expected: []), options: options)
            #expect(report.problem == nil, "\(report.problem ?? "")")
            #expect(report.runs.count == schedules)
            #expect(
                report.findings.isEmpty, "\(scenario.rawValue), \(strategy): \(ExploreReportFormatter.text(report))")
            #expect(report.clientFailures.isEmpty, "\(report.clientFailures.map(\.client))")
            if scenario.dependsOnOrder {
                #expect(report.interleavings > 1, "\(scenario.rawValue): one order only, nothing was explored")
            }
        }
    }

    /// A schedule replayed 20 times: the same steps in the same order, the same verdict, never
    /// diverged. The token race's client depends only on the order of its responses.
    @Test(arguments: [DemoHTTPVersion.http1_1, .http2])
    func aReplayedScheduleGivesTheSameRunEveryTime(_ version: DemoHTTPVersion) async throws {
        let runner = try DemoRunner(httpVersion: version)
        defer { runner.stop() }
        let demoCase = DemoCase([], .tokenRace, expected: [])
        var explored = Self.options(.pct(depth: 3), seed: 4, schedules: 6, settings: Self.steady)
        explored.stopAtFirstFailure = false
        let source = await runner.explore(demoCase, options: explored)
        let picked = try #require(
            source.runs.max { Schedule.deviationCount($0.schedule) < Schedule.deviationCount($1.schedule) })
        var replay = Self.options(.fcfs, seed: 0, schedules: 20, settings: Self.steady)
        replay.replay = try Schedule(parsing: picked.schedule)
        replay.stopAtFirstFailure = false
        let report = await runner.explore(demoCase, options: replay)
        #expect(report.runs.count == 20)
        #expect(
            Set(report.runs.map(\.interleaving)) == [picked.interleaving], "\(version): \(report.runs.map(\.schedule))")
        #expect(report.divergedRuns.isEmpty, "\(report.divergedRuns.map(\.diverged))")
        #expect(Set(report.runs.map(\.violated)) == [picked.violated])
    }

    /// A late-refresh failure found by random shrinks to at most two deviations from arrival
    /// order, and the shrunk schedule still fails when replayed.
    @Test func aFailingScheduleShrinksAndStillFails() async throws {
        let runner = try DemoRunner()
        defer { runner.stop() }
        let demoCase = DemoCase(.adoptLateTokens, .lateRefresh, expected: [.noReactivation])
        var options = Self.options(.random, seed: 3, schedules: 200, settings: Self.steady)
        options.shrinkRuns = 40
        let report = await runner.explore(demoCase, options: options)
        let finding = try #require(
            report.findings.first { $0.clause == .noReactivation }, "\(ExploreReportFormatter.text(report))")
        let shrunk = try #require(finding.shrunk)
        #expect((finding.shrunkDeviations ?? 99) <= 2, "\(ExploreReportFormatter.text(report))")
        #expect((finding.shrunkDeviations ?? 0) <= Schedule.deviationCount(finding.first.schedule))
        var replay = Self.options(.fcfs, seed: 0, schedules: 3, settings: Self.steady)
        replay.replay = try Schedule(parsing: shrunk.schedule)
        replay.stopAtFirstFailure = false
        let again = await runner.explore(demoCase, options: replay)
        #expect(again.runs.allSatisfy { $0.violated.contains(.noReactivation) }, "\(again.runs.map(\.violated))")
    }
}

extension Schedule {
    /// The deviations of a schedule string (0 for one that does not read).
    static func deviationCount(_ text: String) -> Int { (try? Schedule(parsing: text))?.deviations ?? 0 }
}
