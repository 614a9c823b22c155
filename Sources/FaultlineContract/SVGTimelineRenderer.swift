/// Draws a ``ViolationTimeline`` as SVG (``TimelineDrawing`` lays it out): time since the trace's
/// first event to scale along the top, idle gaps cut short and labelled; the seq of every event
/// drawn under it; a lane per lineage, each request a bar from received to delivered (the
/// offending one red and marked `✗`, refreshes blue), other witnesses as dots with their notes;
/// boundaries as dashed lines across every lane, labelled underneath. No label is crossed by a
/// boundary line or covers another. The picture has a `viewBox`, so a page can scale it to its
/// width. Styles are inline, no script, no external resource; every text is XML-escaped.
public enum SVGTimelineRenderer {
    /// The `<style>` the drawing uses (class names start with `fl-`). Every text is monospace, the
    /// font the label widths are estimated for, in the sizes they were estimated at.
    public static let style: String = {
        typealias Font = TimelineDrawing.Font
        return """
            text{font-family:"DejaVu Sans Mono","Liberation Mono",Menlo,Consolas,monospace}
            .fl-title{font-size:\(Font.title)px;font-weight:bold;fill:#222}
            .fl-summary{font-size:\(Font.summary)px;fill:#333}
            .fl-axis{font-size:\(Font.axis)px;fill:#555}
            .fl-axis-line,.fl-tick line{stroke:#888;stroke-width:1}
            .fl-break line{stroke:#888;stroke-width:1.5}
            .fl-seq{font-size:\(Font.seq)px;fill:#444}
            .fl-leader{stroke:#b8b8c4;stroke-width:1}
            .fl-guide{stroke:#dcdce6;stroke-width:1;stroke-dasharray:2 3}
            .fl-lane{fill:#f7f7f9;stroke:#d0d0d8}
            .fl-lane-title{font-size:\(Font.laneTitle)px;font-weight:bold;fill:#333}
            .fl-bar{fill:#9aa5b1;stroke:#5f6b78;stroke-width:1}
            .fl-bar-open{fill:none;stroke:#5f6b78;stroke-dasharray:4 3}
            .fl-refresh .fl-bar{fill:#7fb3e6;stroke:#2f6fad}
            .fl-offending .fl-bar{fill:#e05252;stroke:#8b0000;stroke-width:2}
            .fl-bar-label{font-size:\(Font.bar)px;fill:#222}
            .fl-offending .fl-bar-label{fill:#8b0000;font-weight:bold}
            .fl-mark circle{fill:#555}
            .fl-mark-label{font-size:\(Font.mark)px;fill:#333}
            .fl-mark-refresh circle{fill:#2f6fad}
            .fl-mark-offending circle{fill:#e05252;stroke:#8b0000;stroke-width:2}
            .fl-boundary line{stroke:#b00020;stroke-width:2;stroke-dasharray:6 4}
            .fl-boundary-label{font-size:\(Font.boundary)px;font-weight:bold;fill:#b00020}
            .fl-key{font-size:\(Font.key)px;fill:#555}
            .fl-legend{font-size:\(Font.legend)px;fill:#333;white-space:pre}
            """
    }()

    /// A standalone SVG document (XML declaration, namespace, inline style) to attach to a pull
    /// request: `title` (the clause when nil) and the violation's sentence above the picture, a
    /// key to it and one line per witness (seq, time, lineage, what, note) under it.
    public static func document(_ timeline: ViolationTimeline, title: String? = nil) -> String {
        typealias Font = TimelineDrawing.Font
        let heading = title ?? timeline.clause.rawValue
        let legend = TimelineDocumentText.legend(timeline)
        let width = TimelineDrawing.width(
            for: timeline, atLeast: TimelineDocumentText.width(of: legend, fontSize: Font.legend))
        var header = TimelineDocumentText.Column(width: width, top: 4)
        header.paragraph(heading, fontSize: Font.title, className: "fl-title")
        header.paragraph(timeline.summary, fontSize: Font.summary, className: "fl-summary")
        var drawing = TimelineDrawing(timeline, width: width, top: header.y + 8)
        var footer = TimelineDocumentText.Column(width: width, top: drawing.y + 4)
        footer.paragraph(TimelineKey(timeline).text, fontSize: Font.key, className: "fl-key")
        footer.y += 4
        for line in legend { footer.line(line, fontSize: Font.legend, className: "fl-legend") }
        drawing.elements.insert(contentsOf: header.elements, at: 0)
        drawing.elements.append("<g class=\"fl-legend-group\">" + footer.elements.joined() + "</g>")
        drawing.y = footer.y + 4
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + svg(drawing, label: "aria-label=\"\(escape(heading + ": " + timeline.summary))\"")
    }

    /// The picture alone, for a page that says the rest around it: no title, no sentence, no
    /// legend; its `style` bounds how far the page may shrink or enlarge it. `labelledBy` names the ids of the page's elements that hold its heading and
    /// sentence (`aria-labelledby`), so the sentence is printed once.
    public static func picture(_ timeline: ViolationTimeline, labelledBy: String) -> String {
        let drawing = TimelineDrawing(timeline, width: TimelineDrawing.width(for: timeline), top: 4)
        // A page shrinks it to its width (the viewBox keeps it whole), but not below the scale at
        // which its smallest labels are still legible: narrower than that, its card scrolls
        // sideways. On a wide screen it grows by a quarter at most, past which its labels would
        // outgrow the page's text.
        let smallest = TimelineDrawing.number(drawing.width * TimelineDrawing.smallestScale)
        let largest = TimelineDrawing.number(drawing.width * 1.25)
        let natural = "style=\"min-width:\(smallest)px;max-width:\(largest)px\""
        return svg(drawing, label: "aria-labelledby=\"\(escape(labelledBy))\" \(natural)")
    }

    /// The `<svg>` element of a laid-out drawing: its one `<g class="violation-timeline">` holds a
    /// `<g class="fl-lane-group">` per lane.
    private static func svg(_ drawing: TimelineDrawing, label: String) -> String {
        let width = TimelineDrawing.number(drawing.width)
        let height = TimelineDrawing.number((drawing.y + 4).rounded(.up))
        return
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"faultline-timeline\" width=\"\(width)\" "
            + "height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" \(label)>\n"
            + "<style>\(style)</style>\n"
            + "<g class=\"violation-timeline\" data-clause=\"\(escape(drawing.timeline.clause.rawValue))\">\n"
            + drawing.elements.joined(separator: "\n") + "\n</g>\n</svg>\n"
    }

    /// XML escaping of text and attribute values (``ReportFormatter``'s).
    static func escape(_ text: String) -> String { ReportFormatter.escape(text) }
}
