import FaultlineContract
import Foundation

extension ExploreReportFormatter {
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
                element +=
                    ">\n      <failure type=\"\(clause.rawValue)\" message=\"\(escape(message))\">\(escape(body))</failure>\n    </testcase>"
            } else if report.contract.disabled.contains(clause) {
                skipped += 1
                element += ">\n      <skipped message=\"disabled by the contract\"/>\n    </testcase>"
            } else if let problem = report.problem {
                skipped += 1
                element +=
                    ">\n      <skipped message=\"\(escape("the exploration could not run: " + problem))\"/>\n    </testcase>"
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
            whole +=
                ">\n      <failure type=\"exploration\" message=\"\(escape(wholeProblem))\">\(escape(text(report)))</failure>\n    </testcase>"
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
}
