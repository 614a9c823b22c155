/// Draws a ``ViolationTimeline`` as SVG: a column per `seq`, a lane per lineage, each request a
/// bar from received to delivered (the offending one red and labelled `✗`, refreshes blue),
/// boundaries as dashed lines across every lane, other witnesses as dots, every witness labelled
/// by its `seq`, and a legend listing each witness's note. Styles are inline, no script, no
/// external resource; every text is XML-escaped.
public enum SVGTimelineRenderer {
    static let left = 150
    static let top = 64
    static let columnWidth = 64
    static let rowHeight = 28
    static let laneGap = 12
    static let legendLineHeight = 16

    /// The `<style>` the drawing uses (class names start with `fl-`).
    public static let style = """
        .fl-title{font:bold 13px sans-serif;fill:#222}
        .fl-summary{font:12px sans-serif;fill:#333}
        .fl-axis{font:10px monospace;fill:#666}
        .fl-grid{stroke:#e4e4e4;stroke-width:1}
        .fl-lane{fill:#f7f7f9;stroke:#d0d0d8}
        .fl-lane-title{font:bold 12px sans-serif;fill:#333}
        .fl-bar{fill:#9aa5b1;stroke:#5f6b78;stroke-width:1}
        .fl-bar-open{fill:none;stroke:#5f6b78;stroke-dasharray:4 3}
        .fl-refresh .fl-bar{fill:#7fb3e6;stroke:#2f6fad}
        .fl-offending .fl-bar{fill:#e05252;stroke:#8b0000;stroke-width:2}
        .fl-bar-label{font:11px monospace;fill:#222}
        .fl-offending .fl-bar-label{fill:#8b0000;font-weight:bold}
        .fl-seq{font:10px monospace;fill:#555}
        .fl-boundary line{stroke:#b00020;stroke-width:2;stroke-dasharray:6 4}
        .fl-boundary text{font:bold 10px sans-serif;fill:#b00020}
        .fl-mark circle{fill:#555}
        .fl-mark-refresh circle{fill:#2f6fad}
        .fl-mark-offending circle{fill:#e05252;stroke:#8b0000;stroke-width:2}
        .fl-legend{font:11px monospace;fill:#333}
        """

    /// A standalone SVG document (XML declaration, namespace, inline style): one violation's
    /// picture, to attach to a pull request.
    public static func document(_ timeline: ViolationTimeline, title: String? = nil) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svg(timeline, title: title)
    }

    /// The `<svg>` element alone, for inlining in HTML. Its one `<g class="violation-timeline">`
    /// holds a `<g class="fl-lane-group">` per lane.
    public static func svg(_ timeline: ViolationTimeline, title: String? = nil) -> String {
        let columns = max(timeline.columns.count, 1)
        let barsWidth = columns * columnWidth
        let heading = title ?? "\(timeline.clause.rawValue)"
        let width = max(
            left + barsWidth + 24, textWidth(timeline, heading: heading, x: { left + Self.column($0, timeline) }))
        func x(_ seq: UInt64) -> Int { left + column(seq, timeline) }
        var body: [String] = []
        body.append("<text class=\"fl-title\" x=\"8\" y=\"18\">\(escape(heading))</text>")
        body.append("<text class=\"fl-summary\" x=\"8\" y=\"36\">\(escape(timeline.summary))</text>")
        for seq in timeline.columns {
            body.append("<text class=\"fl-axis\" x=\"\(x(seq))\" y=\"56\" text-anchor=\"middle\">seq \(seq)</text>")
        }
        var y = top
        var laneParts: [String] = []
        for lane in timeline.lanes {
            let rows = lane.bars.count + (lane.marks.contains { $0.kind != .boundary } ? 1 : 0)
            let height = max(rows, 1) * rowHeight + 8
            var part = "<g class=\"fl-lane-group\" data-lane=\"\(escape(lane.title))\">"
            part += "<rect class=\"fl-lane\" x=\"4\" y=\"\(y)\" width=\"\(width - 8)\" height=\"\(height)\" rx=\"4\"/>"
            part += "<text class=\"fl-lane-title\" x=\"12\" y=\"\(y + 18)\">\(escape(lane.title))</text>"
            var rowY = y + 4
            for bar in lane.bars {
                part += self.bar(bar, y: rowY, x: x, right: left + barsWidth)
                rowY += rowHeight
            }
            for mark in lane.marks where mark.kind != .boundary {
                let cx = x(mark.seq)
                let cls = mark.kind == .event ? "fl-mark" : "fl-mark fl-mark-\(mark.kind.rawValue)"
                part += "<g class=\"\(cls)\"><title>\(escape("seq \(mark.seq) \(mark.event): \(mark.note)"))</title>"
                part += "<circle cx=\"\(cx)\" cy=\"\(rowY + 12)\" r=\"5\"/>"
                part += "<text class=\"fl-seq\" x=\"\(cx + 8)\" y=\"\(rowY + 16)\">\(mark.seq)</text></g>"
            }
            part += "</g>"
            laneParts.append(part)
            y += height + laneGap
        }
        body.append(contentsOf: laneParts)
        let lanesBottom = y - laneGap
        for lane in timeline.lanes {
            for mark in lane.marks where mark.kind == .boundary {
                let cx = x(mark.seq)
                body.append(
                    "<g class=\"fl-boundary\"><title>\(escape("seq \(mark.seq) \(mark.event): \(mark.note)"))</title>"
                        + "<line x1=\"\(cx)\" y1=\"\(top - 4)\" x2=\"\(cx)\" y2=\"\(lanesBottom + 4)\"/>"
                        + "<text x=\"\(cx + 4)\" y=\"\(lanesBottom + 16)\">\(escape("\(lane.title) boundary, seq \(mark.seq)"))</text></g>"
                )
            }
        }
        var legendY = lanesBottom + 40
        var legend: [String] = []
        for (seq, line) in legendLines(timeline) {
            legend.append("<text class=\"fl-legend\" x=\"8\" y=\"\(legendY)\">\(escape("seq \(seq)  \(line)"))</text>")
            legendY += legendLineHeight
        }
        body.append("<g class=\"fl-legend-group\">" + legend.joined() + "</g>")
        let height = legendY + 4
        return
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"faultline-timeline\" width=\"\(width)\" height=\"\(height)\" "
            + "viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-label=\"\(escape(heading + ": " + timeline.summary))\">\n"
            + "<style>\(style)</style>\n"
            + "<g class=\"violation-timeline\" data-clause=\"\(escape(timeline.clause.rawValue))\">\n"
            + body.joined(separator: "\n") + "\n</g>\n</svg>\n"
    }

    /// The centre of `seq`'s column, from the left edge of the columns.
    private static func column(_ seq: UInt64, _ timeline: ViolationTimeline) -> Int {
        (timeline.columns.firstIndex(of: seq) ?? 0) * columnWidth + columnWidth / 2
    }

    /// A width that holds the longest texts (the title, the sentence, bar labels, the legend),
    /// at about 7 pixels a character.
    private static func textWidth(_ timeline: ViolationTimeline, heading: String, x: (UInt64) -> Int) -> Int {
        var width = 16 + max(heading.count * 8, timeline.summary.count * 7)
        for (seq, line) in legendLines(timeline) { width = max(width, 16 + ("seq \(seq)  " + line).count * 7) }
        for lane in timeline.lanes {
            for bar in lane.bars { width = max(width, x(bar.startSeq) + 24 + (bar.request.count + 10) * 7) }
        }
        return width
    }

    /// One bar in a row starting at `y`.
    private static func bar(_ bar: ViolationTimeline.Bar, y: Int, x: (UInt64) -> Int, right: Int) -> String {
        var classes = "fl-request"
        if bar.isRefresh { classes += " fl-refresh" }
        if bar.isOffending { classes += " fl-offending" }
        if bar.isBoundary { classes += " fl-logout" }
        let start = x(bar.startSeq) - 4
        let end = bar.endSeq.map { x($0) + 4 } ?? right
        let status = bar.status.map { " → \($0)" } ?? ""
        let label = (bar.isOffending ? "✗ " : "") + bar.request + status
        let seqs = "seq \(bar.startSeq)" + (bar.endSeq.map { "–\($0)" } ?? ", no end seen")
        var out = "<g class=\"\(classes)\"><title>\(escape("\(seqs): \(label) (\(bar.note))"))</title>"
        out +=
            "<rect class=\"fl-bar\(bar.endSeq == nil ? " fl-bar-open" : "")\" x=\"\(start)\" y=\"\(y + 14)\" width=\"\(max(end - start, 8))\" height=\"10\" rx=\"2\"/>"
        out += "<text class=\"fl-seq\" x=\"\(start)\" y=\"\(y + 11)\">\(bar.startSeq)</text>"
        out += "<text class=\"fl-bar-label\" x=\"\(start + 28)\" y=\"\(y + 11)\">\(escape(label))</text>"
        if let endSeq = bar.endSeq, endSeq != bar.startSeq {
            out += "<text class=\"fl-seq\" x=\"\(end + 3)\" y=\"\(y + 23)\">\(endSeq)</text>"
        }
        return out + "</g>"
    }

    /// `(seq, "kind  note")` for every bar end and mark, by seq.
    static func legendLines(_ timeline: ViolationTimeline) -> [(UInt64, String)] {
        var lines: [(UInt64, String)] = []
        for lane in timeline.lanes {
            for bar in lane.bars {
                let status = bar.status.map { " → \($0)" } ?? ""
                lines.append((bar.startSeq, "\(lane.title)  \(bar.request)\(status)  \(bar.note)"))
            }
            for mark in lane.marks where !(mark.kind == .boundary && lane.bars.contains { $0.startSeq == mark.seq }) {
                lines.append((mark.seq, "\(lane.title)  \(mark.event)  \(mark.note)"))
            }
        }
        return lines.sorted { $0.0 < $1.0 }
    }

    /// XML escaping of text and attribute values (``ReportFormatter``'s).
    static func escape(_ text: String) -> String { ReportFormatter.escape(text) }
}
