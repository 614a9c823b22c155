import FaultlineContract
import FaultlineDemo
import FaultlineReplay
import FaultlineTrace
import Foundation
import Testing

/// A recorded race replays offline: each race is captured once, with the correct client, through
/// the proxy against the reference backend; then, with no backend at all, every client variant
/// runs against a replay of that capture with the race's rules on top, and the checker names the
/// same clause as live. Each variant runs 20 times, so a flaky replay shows.
@Suite(.serialized) struct ReplayedRacesTests {
    static let runs = 20

    @Test(arguments: DemoCase.mutationTable)
    func eachVariantIsCaughtByTheSameClauseAgainstAReplay(_ demoCase: DemoCase) async throws {
        let capture = try await RaceCaptures.shared.capture(of: demoCase.scenario)
        let runner = try DemoRunner()
        defer { runner.stop() }
        for run in 1...Self.runs {
            let result = try await runner.replay(demoCase, capture: capture)
            let named = result.violated.sorted().map(\.rawValue)
            try #require(
                result.asExpected,
                "run \(run): \(demoCase.variant) through a replay of \(demoCase.scenario.rawValue): expected \(demoCase.expected.sorted().map(\.rawValue)), checker named \(named)\n\(ReportFormatter.text(result.report, traceName: "trace"))\n\(result.trace.events.filter { $0.kind.rawValue.hasPrefix("replay.") }.map { "\($0.seq) \($0.kind.rawValue) \($0.attributes)" }.joined(separator: "\n"))"
            )
            #expect(result.report.traceProblems.isEmpty, "\(result.report.traceProblems)")
        }
    }
}

/// Captures of each race by the correct client, made once and shared by the tests.
actor RaceCaptures {
    static let shared = RaceCaptures()

    private let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "faultline-replayed-races-\(UUID().uuidString)")
    private var captures: [DemoScenario: URL] = [:]

    func capture(of scenario: DemoScenario) async throws -> URL {
        if let known = captures[scenario] { return known }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let runner = try DemoRunner()
        defer { runner.stop() }
        let file = folder.appendingPathComponent("\(scenario.rawValue).jsonl")
        let live = try await runner.run(DemoCase([], scenario, expected: []), captureTo: file)
        try #require(live.asExpected, "the live capture of \(scenario.rawValue) broke the contract: \(live.violated)")
        captures[scenario] = file
        return file
    }
}
