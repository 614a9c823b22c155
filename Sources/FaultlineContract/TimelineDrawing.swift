import Foundation

/// One violation picture laid out, top to bottom: the time axis (to scale, idle gaps cut short),
/// the seq of every event drawn (each label joined to its instant on the axis), a lane per
/// lineage with a row per request bar and rows of other witnesses, the boundary lines across the
/// lanes with their labels underneath. ``SVGTimelineRenderer`` wraps it in an `<svg>` element.
///
/// The picture has a fixed coordinate system (``width`` wide, unless the seq labels need more) and
/// the page scales it: labels are placed here, once, clear of each other and of the boundary lines
/// (``TimelineLabelPlacer``), so no viewport width can make a line run through a word.
struct TimelineDrawing {
    /// The width the picture is laid out for: a phone's 375-pixel column scales it to three
    /// quarters, where its 13-pixel labels are still 10 pixels high.
    static let preferredWidth = 500.0
    /// The least a page may shrink the picture: its smallest labels are 8 pixels high then.
    static let smallestScale = 8.0 / Font.smallest
    /// From the picture's edge to the lanes.
    static let margin = 8.0
    /// From the picture's edge to the first and last instant on the axis.
    static let inset = 24.0

    /// Font sizes (pixels) of the picture's texts, by what they label.
    enum Font {
        static let axis = 12.0
        static let seq = 12.0
        static let laneTitle = 13.0
        static let bar = 14.0
        static let mark = 13.0
        static let boundary = 13.0
        /// The smallest font of the picture itself (the document's texts around it aside).
        static let smallest = min(axis, seq, laneTitle, bar, mark, boundary)
        static let title = 14.0
        static let summary = 12.0
        static let key = 11.0
        static let legend = 11.0
    }

    let timeline: ViolationTimeline
    let width: Double
    let scale: TimelineTimeScale
    /// Nanoseconds since the trace's first event, by seq, for every seq drawn.
    let offsets: [UInt64: UInt64]
    var placer: TimelineLabelPlacer
    /// The SVG elements, in drawing order.
    var elements: [String] = []
    /// The top of what is drawn next.
    var y: Double

    /// The width `timeline`'s picture is laid out for: ``preferredWidth``, or what its row of seq
    /// labels needs, or `atLeast`.
    static func width(for timeline: ViolationTimeline, atLeast: Double = 0) -> Double {
        let seqLabels = timeline.columns.map { TimelineLabelPlacer.width("seq \($0)", fontSize: Font.seq) }
        let seqRow =
            seqLabels.reduce(0, +) + TimelineLabelPlacer.clearance * Double(max(seqLabels.count - 1, 0))
            + 2 * (Self.margin + 2)
        return max(Self.preferredWidth, seqRow, atLeast).rounded(.up)
    }

    /// Lays out `timeline`'s picture `width` wide (``width(for:atLeast:)``) from `top` down.
    init(_ timeline: ViolationTimeline, width: Double, top: Double) {
        self.timeline = timeline
        self.width = width
        offsets = timeline.offsets
        scale = TimelineTimeScale(instants: Array(offsets.values), from: Self.inset, to: width - Self.inset)
        placer = TimelineLabelPlacer(minX: Self.margin + 2, maxX: width - Self.margin - 2)
        y = top
        drawTimeAxis()
        drawSeqAxis()
        drawLanes()
    }

    /// A coordinate as SVG writes it: at most one decimal.
    static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.1f", rounded)
    }

    /// The rows a text with its baseline at `baseline` takes.
    static func rows(baseline: Double, fontSize: Double) -> (Double, Double) {
        (baseline - 0.8 * fontSize, baseline + 0.25 * fontSize)
    }

    /// A `<text>` element; `x` is its left edge (or its centre with `anchor: "middle"`).
    static func text(
        _ content: String, x: Double, baseline: Double, className: String, anchor: String? = nil
    ) -> String {
        let anchored = anchor.map { " text-anchor=\"\($0)\"" } ?? ""
        return "<text class=\"\(className)\" x=\"\(number(x))\" y=\"\(number(baseline))\"\(anchored)>"
            + SVGTimelineRenderer.escape(content) + "</text>"
    }

    /// A `<line>` element.
    static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, className: String? = nil) -> String {
        let cls = className.map { " class=\"\($0)\"" } ?? ""
        return "<line\(cls) x1=\"\(number(x1))\" y1=\"\(number(y1))\" x2=\"\(number(x2))\" y2=\"\(number(y2))\"/>"
    }
}
