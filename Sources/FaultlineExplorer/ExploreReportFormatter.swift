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
            let verdict = baseline.violated.isEmpty ? "holds" : "broken: " + baseline.violated.map(\.rawValue).joined(separator: ", ")
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
            summary += "; exhaustive: \(report.complete == true ? "every order within the bound run" : "stopped before every order was run"), \(report.pruned ?? 0) independent swaps skipped, \(cut) decisions past --max-steps"
        }
        lines.append(summary)
        if report.interrupted { lines.append("interrupted: the report covers the runs made before the stop") }
        lines.append(verdict(report))
        for finding in report.findings {
            lines.append("")
            lines.append("✗ \(finding.clause.rawValue): broken by \(finding.schedules) of \(report.runs.count) schedules")
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
            for run in diverged.prefix(10) { lines.append("  schedule \(run.index): " + run.diverged.joined(separator: "; ")) }
            if diverged.count > 10 { lines.append("  … and \(diverged.count - 10) more") }
        }
        let failures = report.clientFailures
        if !failures.isEmpty {
            lines.append("")
            lines.append("client failures\(report.failOnClientError ? "" : " (not part of the verdict without --fail-on-client-error)"):")
            for run in failures.prefix(10) { lines.append("  schedule \(run.index): \(run.client.problem ?? "failed")") }
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
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(report), as: UTF8.self) + "\n"
        } catch {
            preconditionFailure("an explore report failed to encode: \(error)")
        }
    }

    /// Reads a report `json` wrote; throws when it is not one.
    public static func decode(_ data: Data) throws -> ExploreReport {
        try JSONDecoder().decode(ExploreReport.self, from: data)
    }

    /// JUnit XML: one test case per clause of the contract (failed with the first and shrunk
    /// schedules when broken, skipped when disabled, or when the exploration could not run: a
    /// clause no schedule was judged against has not passed), and `exploration`, failed when the
    /// exploration could not run, was interrupted, or (with --fail-on-client-error) a client failed.
    public static func junit(_ report: ExploreReport) -> String {
        var cases: [String] = []
        var failures = 0
        var skipped = 0
        for clause in ClauseID.allCases {
            var element = "    <testcase classname=\"faultline.explore\" name=\"\(clause.rawValue)\""
            if let finding = report.findings.first(where: { $0.clause == clause }) {
                failures += 1
                let message = "broken by \(finding.schedules) of \(report.runs.count) schedules"
                let body = [
                    "first: schedule \(finding.first.index) \(finding.first.schedule)" + kept(finding.first),
                    finding.shrunk.map { "shrunk: \($0.schedule)" + kept($0) },
                    "reproduce: " + reproduce(finding.shrunk?.schedule ?? finding.first.schedule, report),
                ].compactMap { $0 }.joined(separator: "\n")
                element += ">\n      <failure type=\"\(clause.rawValue)\" message=\"\(escape(message))\">\(escape(body))</failure>\n    </testcase>"
            } else if report.contract.disabled.contains(clause) {
                skipped += 1
                element += ">\n      <skipped message=\"disabled by the contract\"/>\n    </testcase>"
            } else if let problem = report.problem {
                skipped += 1
                element += ">\n      <skipped message=\"\(escape("the exploration could not run: " + problem))\"/>\n    </testcase>"
            } else {
                element += "/>"
            }
            cases.append(element)
        }
        var whole = "    <testcase classname=\"faultline.explore\" name=\"exploration\""
        let wholeProblem =
            report.problem ?? (report.interrupted ? "interrupted after \(report.runs.count) schedules" : nil)
            ?? (report.failOnClientError && !report.clientFailures.isEmpty
                ? "\(report.clientFailures.count) client failures" : nil)
        if let wholeProblem {
            failures += 1
            whole += ">\n      <failure type=\"exploration\" message=\"\(escape(wholeProblem))\">\(escape(text(report)))</failure>\n    </testcase>"
        } else {
            whole += ">\n      <system-out>\(escape(text(report)))</system-out>\n    </testcase>"
        }
        cases.append(whole)
        let total = cases.count
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<testsuites name=\"faultline explore\" tests=\"\(total)\" failures=\"\(failures)\" skipped=\"\(skipped)\">\n"
            + "  <testsuite name=\"exploration\" tests=\"\(total)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\" time=\"\(String(format: "%.3f", report.elapsedSeconds))\">\n"
            + "    <properties>\n      <property name=\"contract\" value=\"\(escape(report.contract.description))\"/>\n"
            + "      <property name=\"strategy\" value=\"\(escape(report.strategy))\"/>\n      <property name=\"seed\" value=\"\(report.seed)\"/>\n    </properties>\n"
            + cases.joined(separator: "\n") + "\n  </testsuite>\n</testsuites>\n"
    }

    /// One self-contained page (no script, nothing loaded): the summary, then a table of the
    /// clauses broken with the first and shrunk schedules, their reproduce commands and links to
    /// the kept traces' HTML timelines, then runs that diverged or whose client failed.
    public static func html(_ report: ExploreReport) -> String {
        var page = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>faultline explore: \(escape(verdict(report)))</title>
            <style>
            body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;padding:16px;max-width:1100px;color:#1d2330}
            h1{font-size:20px}h2{font-size:16px;margin-top:24px}.passed{color:#1e5e2f}.failed{color:#8b0000}
            table{border-collapse:collapse;width:100%;table-layout:fixed}td,th{border-bottom:1px solid #dde1e8;padding:6px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
            code{font-family:ui-monospace,monospace;font-size:12px;overflow-wrap:anywhere}p.meta{color:#4a5366}
            </style></head><body>
            <h1 class="\(report.passed ? "passed" : "failed")">\(escape(verdict(report)))</h1>

            """
        for line in text(report).split(separator: "\n").prefix(4) { page += "<p class=\"meta\">\(escape(String(line)))</p>\n" }
        if !report.findings.isEmpty {
            page += "<h2>Clauses broken</h2>\n<table><thead><tr><th style=\"width:18%\">clause</th><th>first schedule</th><th>shrunk schedule</th></tr></thead><tbody>\n"
            for finding in report.findings {
                page += "<tr><td>\(escape(finding.clause.rawValue))<br>\(finding.schedules) of \(report.runs.count) schedules</td>"
                page += "<td>\(cell(finding.first, report))</td>"
                page += "<td>\(finding.shrunk.map { cell($0, report) + "<br>\(finding.shrunkDeviations ?? 0) deviations" } ?? "–")</td></tr>\n"
            }
            page += "</tbody></table>\n"
        }
        let noted = report.runs.filter { !$0.diverged.isEmpty || $0.client.failed }
        if !noted.isEmpty {
            page += "<h2>Runs to look at</h2>\n<ul>\n"
            for run in noted.prefix(50) {
                let notes = run.diverged + (run.client.problem.map { ["client: \($0)"] } ?? [])
                page += "<li>schedule \(run.index) <code>\(escape(run.schedule))</code>: \(escape(notes.joined(separator: "; ")))</li>\n"
            }
            page += "</ul>\n"
        }
        return page + "</body></html>\n"
    }

    private static func cell(_ run: ExploreReport.Run, _ report: ExploreReport) -> String {
        var cell = "schedule \(run.index): <code>\(escape(run.schedule))</code><br><code>\(escape(reproduce(run.schedule, report)))</code>"
        if let html = run.html {
            cell += "<br><a href=\"\(escape(URL(fileURLWithPath: html).lastPathComponent))\">timeline</a>"
        }
        return cell
    }

    private static func kept(_ run: ExploreReport.Run) -> String { run.trace.map { "  trace: \($0)" } ?? "" }

    private static func seconds(_ value: Double) -> String { String(format: "%.1f s", value) }

    /// A word the shell reads as it is, quoted when it needs to be.
    static func shellQuoted(_ word: String) -> String {
        let plain = word.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || "-_./=:,@%+".unicodeScalars.contains($0)
        }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    private static func escape(_ text: String) -> String { MarkupEscaping.escaped(text) }
}
