/// The HTML report: one self-contained page (inline CSS and SVG, no script, no external resource).
extension ReportFormatter {
    /// The report as one HTML page: the verdict, then per violation its clause, sentence and an
    /// inline-SVG swimlane timeline (``SVGTimelineRenderer``; one `<g class="violation-timeline">`
    /// each) with the text timeline under it, then the clauses as the text report lists them and
    /// any trace problems. `spans` (``RequestSpanCollector``) lets bars end where the trace says.
    /// Every text is escaped.
    public static func html(
        _ report: ContractReport, traceName: String? = nil, spans: [UInt64: RequestSpan] = [:]
    ) -> String {
        let verdictLine = verdict(report, traceName: traceName)
        var page = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>\(escape("faultline check" + (traceName.map { ": " + $0 } ?? "")))</title>
            <style>
            body{font:14px/1.45 sans-serif;margin:24px;color:#222;max-width:1200px}
            h1{font-size:20px}h2{font-size:17px;margin-top:28px}h3{font-size:15px;margin-bottom:4px}
            .verdict{font-weight:bold;padding:8px 12px;border-radius:4px}
            .verdict.failed{background:#fde8e8;color:#8b0000}.verdict.passed{background:#e6f4ea;color:#1e5e2f}
            .violation{border:1px solid #ddd;border-radius:6px;padding:4px 16px 12px;margin:16px 0}
            .picture{overflow-x:auto}
            pre{background:#f6f6f6;padding:8px;overflow-x:auto;font-size:12px}
            ul.clauses{list-style:none;padding-left:8px}ul.clauses li{font-family:monospace}
            .broken{color:#8b0000}.held{color:#1e5e2f}.skipped{color:#8a6d00}.disabled{color:#777}
            </style>
            </head>
            <body>
            <h1>faultline check</h1>
            <p class="verdict \(report.passed ? "passed" : "failed")">\(escape(verdictLine))</p>

            """
        if !report.violations.isEmpty {
            page += "<h2>Violations</h2>\n"
        }
        for (index, violation) in report.violations.enumerated() {
            let number = index + 1
            let picture = ViolationTimeline(violation: violation, spans: spans)
            page += "<section class=\"violation\" id=\"violation-\(number)\">\n"
            page +=
                "<h3>\(number). ✗ \(escape(violation.clause.rawValue)): \(escape(violation.clause.requirement))</h3>\n"
            page += "<p>\(escape(violation.summary)).</p>\n"
            page += "<div class=\"picture\">\n"
            page += SVGTimelineRenderer.svg(picture, title: "\(number). \(violation.clause.rawValue)")
            page += "</div>\n"
            let text = timeline(violation.timeline).joined(separator: "\n")
            page += "<details><summary>as text</summary><pre>\(escape(text))</pre></details>\n"
            page += "</section>\n"
        }
        let omitted = report.omittedViolations.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        for (clause, count) in omitted {
            page +=
                "<p>… and \(count) more violation\(count == 1 ? "" : "s") of \(escape(clause.rawValue)) (not listed)</p>\n"
        }
        page += "<h2>Clauses</h2>\n<ul class=\"clauses\">\n"
        for clause in ClauseID.allCases {
            let count = report.violationCount(of: clause)
            let name = escape(clause.rawValue)
            if count > 0 {
                page += "<li class=\"broken\">✗ \(name): \(count) violation\(count == 1 ? "" : "s")</li>\n"
            } else if report.clausesChecked.contains(clause) {
                page += "<li class=\"held\">✓ \(name)</li>\n"
            } else if let skipped = report.clausesSkipped.first(where: { $0.clause == clause }) {
                page += "<li class=\"skipped\">? \(name): not checked, \(escape(skipped.reason))</li>\n"
            } else if report.clausesDisabled.contains(clause) {
                page += "<li class=\"disabled\">- \(name): disabled by the contract</li>\n"
            }
        }
        page += "</ul>\n"
        if !report.traceProblems.isEmpty {
            page += "<h2>Trace problems</h2>\n<p>The trace itself cannot be fully trusted.</p>\n<ul>\n"
            for problem in report.traceProblems {
                page += "<li>\(escape(problem.kind.rawValue)): \(escape(problem.message))</li>\n"
            }
            if report.omittedTraceProblems > 0 { page += "<li>… and \(report.omittedTraceProblems) more</li>\n" }
            page += "</ul>\n"
        }
        page += "</body>\n</html>\n"
        return page
    }
}
