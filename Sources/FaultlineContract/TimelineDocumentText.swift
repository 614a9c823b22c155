/// The texts a standalone violation picture (``SVGTimelineRenderer/document(_:title:)``) carries
/// around the drawing, which a page says in HTML instead: one line per witness, and the wrapping
/// of a sentence to the picture's width.
enum TimelineDocumentText {
    /// `seq 24  +0.004s  lineage L1  POST /logout → 204  logout sent (boundary)`, one per witness,
    /// by seq: the picture's legend, in the text report's words (``ReportFormatter/what(_:)``).
    static func legend(_ timeline: ViolationTimeline) -> [String] {
        timeline.events.sorted { $0.seq < $1.seq }.map { event in
            let lane = event.lineage.map { "lineage \($0)" } ?? "other events"
            return
                "seq \(event.seq)  \(ReportFormatter.time(event))  \(lane)  \(ReportFormatter.what(event))  \(event.note)"
        }
    }

    /// The widest of `lines`, with the picture's margins.
    static func width(of lines: [String], fontSize: Double) -> Double {
        (lines.map { TimelineLabelPlacer.width($0, fontSize: fontSize) }.max() ?? 0) + 16
    }

    /// `text` in lines no wider than `width`, broken between words, and inside a word (a path) too
    /// long for a line of its own.
    static func wrap(_ text: String, width: Double, fontSize: Double) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            let candidate = line.isEmpty ? String(word) : line + " " + word
            if TimelineLabelPlacer.width(candidate, fontSize: fontSize) <= width {
                line = candidate
                continue
            }
            if !line.isEmpty { lines.append(line) }
            line = ""
            for character in word {
                if !line.isEmpty && TimelineLabelPlacer.width(line + String(character), fontSize: fontSize) > width {
                    lines.append(line)
                    line = ""
                }
                line.append(character)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// Texts stacked from a `top` down, 8 pixels from the picture's left edge, each line
    /// 1.3 times its font size below the last.
    struct Column {
        let width: Double
        /// The bottom of the last line.
        var y: Double
        var elements: [String] = []

        init(width: Double, top: Double) {
            self.width = width
            y = top
        }

        /// `text` wrapped to the picture's width as one `<text>` element (a title stays one text
        /// however it wraps), a `<tspan>` per line when there are several.
        mutating func paragraph(_ text: String, fontSize: Double, className: String) {
            let lines = TimelineDocumentText.wrap(text, width: width - 16, fontSize: fontSize)
            let lineHeight = fontSize * 1.3
            let spans = lines.enumerated().map { index, line in
                let dy = index == 0 ? "0" : TimelineDrawing.number(lineHeight)
                return "<tspan x=\"8\" dy=\"\(dy)\">" + SVGTimelineRenderer.escape(line) + "</tspan>"
            }
            elements.append(
                "<text class=\"\(className)\" x=\"8\" y=\"\(TimelineDrawing.number(y + lineHeight))\">"
                    + (lines.count == 1 ? SVGTimelineRenderer.escape(lines[0]) : spans.joined()) + "</text>")
            y += Double(lines.count) * lineHeight
        }

        /// `text` on one line, its runs of spaces kept (the legend's fields are parted by two).
        mutating func line(_ text: String, fontSize: Double, className: String) {
            y += fontSize * 1.3
            elements.append(
                "<text class=\"\(className)\" xml:space=\"preserve\" x=\"8\" y=\"\(TimelineDrawing.number(y))\">"
                    + SVGTimelineRenderer.escape(text) + "</text>")
        }
    }
}
