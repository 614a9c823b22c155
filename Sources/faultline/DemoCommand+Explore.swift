import FaultlineContract
import FaultlineCore
import FaultlineDemo
import FaultlineExplore
import FaultlineExplorer
import Foundation

/// `faultline demo --explore`: the mutation table with the orders found by exploration instead
/// of staged by rules.
extension DemoCommand {
    static func exploreOptions(_ parsed: ParsedArguments) throws(UsageError) -> ExploreOptions {
        var options = ExploreOptions(strategy: .pct(depth: 3), seed: 1, schedules: 50, shrinkRuns: 30)
        options.schedules = try parsed.integer("--schedules", default: 50, in: 1...100_000, command: "demo")
        switch parsed.value("--strategy") ?? "pct" {
        case "pct": options.strategy = .pct(depth: 3)
        case "random": options.strategy = .random
        case let other: throw UsageError(description: "faultline demo: --strategy takes pct or random, not '\(other)'")
        }
        if let text = parsed.value("--seed") {
            guard let seed = UInt64(text) else {
                throw UsageError(description: "faultline demo: --seed takes a whole number, not '\(text)'")
            }
            options.seed = seed
        }
        options.settings.settle = .milliseconds(
            try parsed.integer("--settle", default: 25, in: 1...10_000, command: "demo", unit: "milliseconds"))
        // The demo's clients log out on a timer (40 ms, or three settle windows when longer): a
        // wait a little longer than that finds the logout races, and a schedule that waits for
        // nothing costs less than with explore's one-second default.
        options.settings.maxWait = .milliseconds(
            try parsed.integer("--max-wait", default: 100, in: 0...10_000, command: "demo", unit: "milliseconds"))
        return options
    }

    static func explore(_ cases: [DemoCase], options: ExploreOptions, version: DemoHTTPVersion) async -> Int32 {
        guard let runner = startRunner(version: version) else { return 1 }
        defer { runner.stop() }
        let speaks = version == .http1_1 ? "" : "; the client speaks \(version.rawValue)"
        print(
            "Faultline demo, explored: no ordering rules; \(options.strategy), seed \(options.seed), up to \(options.schedules) schedules per case, settle \(options.settings.settle.wholeMilliseconds) ms, max wait \(options.settings.maxWait.wholeMilliseconds) ms where the client logs out on a timer\(speaks)\n"
        )
        var surprises = 0
        for demoCase in cases {
            var caseOptions = options
            caseOptions.stopAtFirstFailure = !demoCase.flaws.isEmpty
            caseOptions.keepDirectory = options.keepDirectory.map {
                "\($0)/\(demoCase.scenario.rawValue)-\(demoCase.variant)"
            }
            let report = await runner.explore(demoCase, options: caseOptions)
            let name = demoCase.flaws.isEmpty ? "correct client" : "broken client (\(demoCase.variant))"
            print("▶ \(name): \(demoCase.scenario.summary)")
            let found = Set(report.findings.map(\.clause))
            let asExpected: Bool
            if let problem = report.problem {
                print("  the exploration could not run: \(problem)")
                asExpected = false
            } else if demoCase.flaws.isEmpty {
                asExpected = found.isEmpty
                let outcome =
                    found.isEmpty ? "no violation" : "broken: " + found.map(\.rawValue).sorted().joined(separator: ", ")
                print(
                    "  \(report.runs.count) schedules, \(report.interleavings) distinct order\(report.interleavings == 1 ? "" : "s"): \(outcome)"
                )
            } else if let finding = report.findings.first {
                asExpected = !found.isDisjoint(with: demoCase.exploreExpected)
                let schedules = finding.first.index + 1
                print(
                    "  found \(found.map(\.rawValue).sorted().joined(separator: ", ")) after \(schedules) schedule\(schedules == 1 ? "" : "s"): \(finding.first.schedule)"
                )
                if let shrunk = finding.shrunk {
                    let deviations = finding.shrunkDeviations ?? 0
                    print(
                        "  shrunk to \(deviations) deviation\(deviations == 1 ? "" : "s") from arrival order: \(shrunk.schedule)"
                    )
                }
            } else {
                asExpected = false
                print("  not found in \(report.runs.count) schedules")
            }
            let expectation =
                demoCase.expected.isEmpty
                ? "no violation" : demoCase.exploreExpected.map(\.rawValue).sorted().joined(separator: " or ")
            print("  expected: \(expectation) \(asExpected ? "✓" : "✗ (unexpected)")\n")
            if !asExpected { surprises += 1 }
        }
        if surprises == 0 {
            print(
                "Every broken client was caught by exploration alone, and the correct client kept the contract in every schedule."
            )
        } else {
            print("\(surprises) case(s) did not go as expected.")
        }
        return surprises == 0 ? 0 : 1
    }
}
