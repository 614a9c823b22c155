import FaultlineContract
import Foundation

extension ExploreReportFormatter {
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
        for line in text(report).split(separator: "\n").prefix(4) {
            page += "<p class=\"meta\">\(escape(String(line)))</p>\n"
        }
        if !report.findings.isEmpty {
            page +=
                "<h2>Clauses broken</h2>\n<table><thead><tr><th style=\"width:18%\">clause</th><th>first schedule</th><th>shrunk schedule</th></tr></thead><tbody>\n"
            for finding in report.findings {
                page +=
                    "<tr><td>\(escape(finding.clause.rawValue))<br>\(finding.schedules) of \(report.runs.count) schedules</td>"
                page += "<td>\(cell(finding.first, report))</td>"
                page +=
                    "<td>\(finding.shrunk.map { cell($0, report) + "<br>\(finding.shrunkDeviations ?? 0) deviations" } ?? "–")</td></tr>\n"
            }
            page += "</tbody></table>\n"
        }
        let noted = report.runs.filter { !$0.diverged.isEmpty || $0.client.failed }
        if !noted.isEmpty {
            page += "<h2>Runs to look at</h2>\n<ul>\n"
            for run in noted.prefix(50) {
                let notes = run.diverged + (run.client.problem.map { ["client: \($0)"] } ?? [])
                page +=
                    "<li>schedule \(run.index) <code>\(escape(run.schedule))</code>: \(escape(notes.joined(separator: "; ")))</li>\n"
            }
            page += "</ul>\n"
        }
        return page + "</body></html>\n"
    }

    private static func cell(_ run: ExploreReport.Run, _ report: ExploreReport) -> String {
        var cell =
            "schedule \(run.index): <code>\(escape(run.schedule))</code><br><code>\(escape(reproduce(run.schedule, report)))</code>"
        if let html = run.html {
            cell += "<br><a href=\"\(escape(URL(fileURLWithPath: html).lastPathComponent))\">timeline</a>"
        }
        return cell
    }
}
