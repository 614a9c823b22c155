/// The two axes at the top of a violation picture: time to scale, then the seq of each event.
extension TimelineDrawing {
    /// The time axis: a line with ticks at round instants (`4 ms`), broken where an idle gap was
    /// cut short, the break labelled with the time it leaves out (`gap 1.2 s`). One
    /// `<g class="fl-time-axis">`; each labelled tick a `<g class="fl-tick" data-ns data-x>`,
    /// a tick whose label would cover another's `fl-tick fl-tick-minor` without text.
    mutating func drawTimeAxis() {
        let labelBaseline = y + 12
        let axisY = y + 20
        let labelRows = Self.rows(baseline: labelBaseline, fontSize: Font.axis)
        var parts: [String] = []
        var start = Self.margin + 4
        for cut in scale.breaks {
            parts.append(Self.line(start, axisY, cut.x0, axisY, className: "fl-axis-line"))
            start = cut.x1
        }
        parts.append(Self.line(start, axisY, width - Self.margin - 4, axisY, className: "fl-axis-line"))
        // Every break is labelled (it is the only place the time it leaves out is said), so two
        // breaks closer than their labels are wide push their labels apart rather than lose one.
        let breakWidths = scale.breaks.map { TimelineLabelPlacer.width($0.label, fontSize: Font.axis) }
        let breakLefts = placer.spread(centres: scale.breaks.map { ($0.x0 + $0.x1) / 2 }, widths: breakWidths)
        for (cut, (left, labelWidth)) in zip(scale.breaks, zip(breakLefts, breakWidths)) {
            placer.claim(.init(x0: left, x1: left + labelWidth, y0: labelRows.0, y1: labelRows.1))
            parts.append(
                "<g class=\"fl-break\" data-from-ns=\"\(cut.from)\" data-to-ns=\"\(cut.to)\">"
                    + Self.line(cut.x0 - 3, axisY + 5, cut.x0 + 3, axisY - 5)
                    + Self.line(cut.x1 - 3, axisY + 5, cut.x1 + 3, axisY - 5)
                    + Self.text(cut.label, x: left, baseline: labelBaseline, className: "fl-axis") + "</g>")
        }
        for tick in scale.ticks {
            let mark = Self.line(tick.x, axisY, tick.x, axisY + 5)
            let attributes = "data-ns=\"\(tick.nanoseconds)\" data-x=\"\(Self.number(tick.x))\""
            if let left = placeCentred(tick.label, at: tick.x, rows: labelRows, fontSize: Font.axis) {
                parts.append(
                    "<g class=\"fl-tick\" \(attributes)>" + mark
                        + Self.text(tick.label, x: left, baseline: labelBaseline, className: "fl-axis") + "</g>")
            } else {
                parts.append("<g class=\"fl-tick fl-tick-minor\" \(attributes)>" + mark + "</g>")
            }
        }
        elements.append(
            "<g class=\"fl-time-axis\" data-px-per-ns=\"\(scale.scale)\">" + parts.joined() + "</g>")
        y = axisY
    }

    /// The seq of every event drawn, in one row under the time axis, each joined by a leader to
    /// its instant on the axis: a label is centred on its instant unless its neighbours need the
    /// room, then pushed aside just enough (the order is kept, so no two leaders cross). Each a
    /// `<g class="fl-seq-label" data-seq data-ns data-x>`.
    mutating func drawSeqAxis() {
        let leaderTop = y + 6
        let baseline = y + 27
        let rows = Self.rows(baseline: baseline, fontSize: Font.seq)
        let labels = timeline.columns.map { seq in
            let x = scale.x(offsets[seq] ?? 0)
            return (
                seq: seq, x: x, text: "seq \(seq)", width: TimelineLabelPlacer.width("seq \(seq)", fontSize: Font.seq)
            )
        }
        let lefts = placer.spread(centres: labels.map(\.x), widths: labels.map(\.width))
        var parts: [String] = []
        for (label, left) in zip(labels, lefts) {
            let centre = left + label.width / 2
            placer.claim(.init(x0: left, x1: left + label.width, y0: rows.0, y1: rows.1))
            parts.append(
                "<g class=\"fl-seq-label\" data-seq=\"\(label.seq)\" data-ns=\"\(offsets[label.seq] ?? 0)\" "
                    + "data-x=\"\(Self.number(label.x))\">"
                    + Self.line(label.x, leaderTop, centre, rows.0 - 1, className: "fl-leader")
                    + Self.text(label.text, x: centre, baseline: baseline, className: "fl-seq", anchor: "middle")
                    + "</g>")
        }
        elements.append("<g class=\"fl-seq-axis\">" + parts.joined() + "</g>")
        y = rows.1 + 6
    }

    /// Claims a `text` centred at `x` (moved inwards at the picture's edges) and returns its left
    /// edge, or nil when it would cover a label placed before.
    private mutating func placeCentred(_ text: String, at x: Double, rows: (Double, Double), fontSize: Double)
        -> Double?
    {
        let width = TimelineLabelPlacer.width(text, fontSize: fontSize)
        let left = min(max(x - width / 2, placer.minX), placer.maxX - width)
        let box = TimelineLabelPlacer.Box(x0: left, x1: left + width, y0: rows.0, y1: rows.1)
        guard placer.isFree(box) else { return nil }
        placer.claim(box)
        return left
    }
}
