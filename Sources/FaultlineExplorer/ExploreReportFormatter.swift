import FaultlineContract
import FaultlineCore
public import Foundation

/// Prints an `ExploreReport` for people (`text`), tools (`json`, which decodes back into an equal
/// report), CI (`junit`: a test case per clause, plus one for the exploration itself) and
/// browsers (`html`, one self-contained page).
public enum ExploreReportFormatter {
    /// The shell command that replays `schedule` against the same client, with the options that
    /// shaped the runs (rules, windows, `--before-each`…).
    public static func reproduce(_ schedule: String, _ report: ExploreReport) -> String {
        let client = report.command.isEmpty ? "CLIENT…" : report.command.map(shellQuoted).joined(separator: " ")
        let options = report.arguments.map { shellQuoted($0) + " " }.joined()
        return "faultline explore \(options)--schedule '\(schedule)' -- \(client)"
    }

    /// The report for a person: what ran, the verdict, then per clause the first and the shrunk
    /// schedule with the command that replays it and the kept trace; runs that diverged or whose
    /// client failed follow.
    public static func text(_ report: ExploreReport) -> String {
        var lines: [String] = []
        let shard = report.shard.map { " (shard \($0))" } ?? ""
        lines.append(
            "faultline explore: \(report.strategy), seed \(report.seed), \(report.schedules) schedule\(report.schedules == 1 ? "" : "s")\(shard); settle \(report.settleMilliseconds) ms, max wait \(report.maxWaitMilliseconds) ms"
        )
        lines.append(report.contract.line)
        if let baseline = report.baseline {
            let verdict =
                baseline.violated.isEmpty
                ? "holds" : "broken: " + baseline.violated.map(\.rawValue).joined(separator: ", ")
            lines.append("baseline (arrival order): \(baseline.decisions) decisions, contract \(verdict)")
        }
        let rate = report.elapsedSeconds > 0 ? Double(report.runs.count) / report.elapsedSeconds : 0
        var summary =
            "\(report.runs.count) schedule\(report.runs.count == 1 ? "" : "s") run in \(seconds(report.elapsedSeconds)) (\(String(format: "%.1f", rate))/s), \(report.interleavings) distinct interleaving\(report.interleavings == 1 ? "" : "s"), \(report.divergedRuns.count) diverged, \(report.clientFailures.count) client failure\(report.clientFailures.count == 1 ? "" : "s")"
        if let shrink = report.shrinkSeconds {
            let runs = report.findings.compactMap(\.shrinkRuns).reduce(0, +)
            summary += "; shrinking: \(runs) run\(runs == 1 ? "" : "s") in \(seconds(shrink))"
        }
        if let cut = report.cut {
            summary +=
                "; exhaustive: \(report.complete == true ? "every order within the bound run" : "stopped before every order was run"), \(report.pruned ?? 0) independent swaps skipped, \(cut) decisions past --max-steps"
        }
        lines.append(summary)
        if report.interrupted { lines.append("interrupted: the report covers the runs made before the stop") }
        lines.append(verdict(report))
        for finding in report.findings {
            lines.append("")
            lines.append(
                "✗ \(finding.clause.rawValue): broken by \(finding.schedules) of \(report.runs.count) schedules")
            lines.append("    first:  schedule \(finding.first.index)  \(finding.first.schedule)" + kept(finding.first))
            if let shrunk = finding.shrunk {
                let deviations = finding.shrunkDeviations ?? 0
                lines.append(
                    "    shrunk: \(shrunk.schedule)  (\(deviations) deviation\(deviations == 1 ? "" : "s") from arrival order, \(finding.shrinkRuns ?? 0) runs)"
                        + kept(shrunk))
            }
            lines.append("    reproduce: " + reproduce(finding.shrunk?.schedule ?? finding.first.schedule, report))
        }
        let diverged = report.divergedRuns
        if !diverged.isEmpty {
            lines.append("")
            lines.append("diverged (the run did not go as scheduled):")
            for run in diverged.prefix(10) {
                lines.append("  schedule \(run.index): " + run.diverged.joined(separator: "; "))
            }
            if diverged.count > 10 { lines.append("  … and \(diverged.count - 10) more") }
        }
        let failures = report.clientFailures
        if !failures.isEmpty {
            lines.append("")
            lines.append(
                "client failures\(report.failOnClientError ? "" : " (not part of the verdict without --fail-on-client-error)"):"
            )
            for run in failures.prefix(10) {
                lines.append("  schedule \(run.index): \(run.client.problem ?? "failed")")
            }
            if failures.count > 10 { lines.append("  … and \(failures.count - 10) more") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `PASSED: …`, `FAILED: …`, or why the exploration could not run.
    public static func verdict(_ report: ExploreReport) -> String {
        if let problem = report.problem { return "NOT RUN: \(problem)" }
        if report.passed {
            return "PASSED: no schedule broke the contract"
                + (report.clientFailures.isEmpty ? "" : " (\(report.clientFailures.count) client failures, see below)")
        }
        var parts: [String] = []
        if !report.findings.isEmpty {
            parts.append(
                "\(report.findings.count) clause\(report.findings.count == 1 ? "" : "s") broken: "
                    + report.findings.map(\.clause.rawValue).joined(separator: ", "))
        }
        if report.failOnClientError, !report.clientFailures.isEmpty {
            parts.append("\(report.clientFailures.count) client failure\(report.clientFailures.count == 1 ? "" : "s")")
        }
        return "FAILED: " + parts.joined(separator: "; ")
    }

    /// The report as JSON: pretty, keys sorted.
    public static func json(_ report: ExploreReport) -> String {
        ReportJSON.text(report, what: "an explore report")
    }

    /// Reads a report `json` wrote; throws when it is not one.
    public static func decode(_ data: Data) throws -> ExploreReport {
        try JSONDecoder().decode(ExploreReport.self, from: data)
    }

    static func kept(_ run: ExploreReport.Run) -> String { run.trace.map { "  trace: \($0)" } ?? "" }

    private static func seconds(_ value: Double) -> String { String(format: "%.1f s", value) }

    /// A word the shell reads as it is, quoted when it needs to be.
    static func shellQuoted(_ word: String) -> String {
        let plain = word.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || "-_./=:,@%+".unicodeScalars.contains($0)
        }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    static func escape(_ text: String) -> String { MarkupEscaping.escaped(text) }
}
