/// The HTML report: one self-contained page (inline CSS and SVG, no script, no external resource)
/// that reads the same at a desktop's width and a phone's.
extension ReportFormatter {
    /// The report as one HTML page: the contract that judged the trace (``ContractSummary/line``) and
    /// the verdict, then per violation its clause, its sentence (once),
    /// an inline-SVG picture (``SVGTimelineRenderer/picture(_:labelledBy:)``; one
    /// `<g class="violation-timeline">` each) that scales to the width of its card, a key to the
    /// picture and the witnesses as a list, then the clauses as the text report lists them (`○` for
    /// those the trace gave nothing to judge) and any
    /// trace problems. `traceName` is named by its file name only (``traceFileName(_:)``): the page
    /// gets attached and shared, the folders it was written in are nobody's business. `spans`
    /// (``RequestSpanCollector``) lets bars end where the trace says. Every text is escaped.
    public static func html(
        _ report: ContractReport, traceName: String? = nil, spans: [UInt64: RequestSpan] = [:]
    ) -> String {
        let fileName = traceName.map(traceFileName)
        let verdictLine = verdict(report, traceName: fileName)
        var page = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape("faultline check" + (fileName.map { ": " + $0 } ?? "")))</title>
            <style>
            body{font:14px/1.45 sans-serif;margin:24px;color:#222;max-width:1200px;overflow-wrap:anywhere}
            h1{font-size:20px}h2{font-size:17px;margin-top:28px}h3{font-size:15px;margin-bottom:4px}
            .verdict{font-weight:bold;padding:8px 12px;border-radius:4px}
            .verdict.failed{background:#fde8e8;color:#8b0000}.verdict.passed{background:#e6f4ea;color:#1e5e2f}
            .violation{border:1px solid #ddd;border-radius:6px;padding:4px 16px 12px;margin:16px 0}
            .picture{margin:12px 0 4px;overflow-x:auto}
            .picture svg{display:block;width:100%;height:auto}
            .key{font-size:12px;color:#555;margin-top:6px}
            .key .item{white-space:nowrap;margin-right:10px}
            .key .swatch{display:inline-block;width:16px;height:8px;border:1px solid;border-radius:2px;margin-right:4px}
            .key .request{background:#9aa5b1;border-color:#5f6b78}.key .offending{background:#e05252;border-color:#8b0000}
            .key .refresh{background:#7fb3e6;border-color:#2f6fad}.key .open{border:1px dashed #5f6b78}
            .key .witness{width:9px;height:9px;border-radius:50%;background:#555;border-color:#555}
            .key .boundary{width:0;height:12px;border:0;border-left:2px dashed #b00020;border-radius:0;vertical-align:middle}
            ul.witnesses{list-style:none;padding:0;margin:10px 0 0;font-size:13px}
            ul.witnesses li{border-left:3px solid #d0d0d8;padding:1px 0 1px 8px;margin:3px 0}
            ul.witnesses li.offending{border-color:#e05252}ul.witnesses li.boundary{border-color:#b00020}
            ul.witnesses .seq,ul.witnesses .time{font-family:monospace;color:#555}
            ul.clauses{list-style:none;padding-left:8px}ul.clauses li{font-family:monospace}
            .broken{color:#8b0000}.held{color:#1e5e2f}.idle{color:#555}.skipped{color:#8a6d00}.disabled{color:#777}
            .contract{font-family:monospace;font-size:12px;color:#555;margin:0 0 6px}
            @media (max-width:600px){body{margin:12px}.violation{padding:2px 10px 10px}}
            </style>
            </head>
            <body>
            <h1>faultline check</h1>
            <p class="contract">\(escape(report.contract.line))</p>
            <p class="verdict \(report.passed ? "passed" : "failed")">\(escape(verdictLine))</p>

            """
        if !report.violations.isEmpty {
            page += "<h2>Violations</h2>\n"
        }
        for (index, violation) in report.violations.enumerated() {
            page += violationSection(violation, number: index + 1, spans: spans)
        }
        let omitted = report.omittedViolations.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        for (clause, count) in omitted {
            page +=
                "<p>… and \(count) more violation\(count == 1 ? "" : "s") of \(escape(clause.rawValue)) (not listed)</p>\n"
        }
        page += "<h2>Clauses</h2>\n<ul class=\"clauses\">\n"
        for clause in ClauseID.allCases {
            guard let standing = report.standing(of: clause) else { continue }
            page += "<li class=\"\(standing.cssClass)\">\(escape(standing.line(clause)))</li>\n"
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

extension ReportFormatter {
    /// One violation's card: heading, sentence, picture, key, witnesses.
    private static func violationSection(_ violation: Violation, number: Int, spans: [UInt64: RequestSpan]) -> String {
        let id = "violation-\(number)"
        var section = "<section class=\"violation\" id=\"\(id)\">\n"
        section +=
            "<h3 id=\"\(id)-title\">\(number). ✗ \(escape(violation.clause.rawValue)): \(escape(violation.clause.requirement))</h3>\n"
        section += "<p class=\"sentence\" id=\"\(id)-sentence\">\(escape(violation.summary)).</p>\n"
        section += "<figure class=\"picture\">\n"
        let timeline = ViolationTimeline(violation: violation, spans: spans)
        section += SVGTimelineRenderer.picture(timeline, labelledBy: "\(id)-title \(id)-sentence")
        section += "</figure>\n"
        section += pictureKey(timeline)
        section += "<ul class=\"witnesses\">\n"
        for event in violation.timeline.sorted(by: { $0.seq < $1.seq }) {
            let lane = event.lineage.map { "lineage \($0)" } ?? "other events"
            section +=
                "<li class=\"\(event.marker.rawValue)\"><span class=\"seq\">seq \(event.seq)</span> "
                + "<span class=\"time\">\(time(event))</span> \(escape(lane)) · \(escape(what(event))): "
                + "\(escape(event.note))</li>\n"
        }
        section += "</ul>\n</section>\n"
        return section
    }

    /// What the picture's axes and shapes mean (``TimelineKey``), each shape with its swatch.
    private static func pictureKey(_ timeline: ViolationTimeline) -> String {
        let key = TimelineKey(timeline)
        let shapes = key.shapes.map {
            "<span class=\"item\"><span class=\"swatch \($0.shape.rawValue)\"></span>\(escape($0.meaning))</span>"
        }
        return "<p class=\"key\">\(escape(key.axes)) " + shapes.joined(separator: " ") + "</p>\n"
    }
}
