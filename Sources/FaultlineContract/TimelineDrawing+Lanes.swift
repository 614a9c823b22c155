/// The lanes of a violation picture and the boundary lines across them.
extension TimelineDrawing {
    static let laneGap = 10.0
    static let barRowHeight = 30.0
    static let markRowHeight = 22.0
    /// A request of a millisecond is still a bar one can see and point at.
    static let minimumBarWidth = 6.0

    /// A lane per lineage, then the boundary lines over all of them. The boundaries are known
    /// first, so every label in the lanes is placed clear of them.
    mutating func drawLanes() {
        let lanesTop = y
        var boundaries: [(mark: ViolationTimeline.Mark, x: Double)] = []
        for lane in timeline.lanes {
            for mark in lane.marks
            where mark.kind == .boundary && !boundaries.contains(where: { $0.mark.seq == mark.seq }) {
                let x = scale.x(mark.offsetNanoseconds)
                boundaries.append((mark, x))
                placer.add(.init(x: x, y0: lanesTop - 4, y1: .greatestFiniteMagnitude))
            }
        }
        for lane in timeline.lanes {
            drawLane(lane)
            y += Self.laneGap
        }
        let lanesBottom = y - Self.laneGap + 4
        placer.endBarriers(at: lanesBottom)
        y = lanesBottom
        drawBoundaries(boundaries, from: lanesTop - 4)
    }

    /// One lineage's lane: its title, a row per request bar, then rows of its other witnesses
    /// (each a dot with its note beside it), behind them a faint guide at every instant drawn.
    private mutating func drawLane(_ lane: ViolationTimeline.Lane) {
        let top = y
        var parts: [String] = []
        let titleBaseline = top + 17
        parts.append(
            place(
                lane.title, fontSize: Font.laneTitle, baseline: titleBaseline, preferred: Self.margin + 8, anchor: nil,
                className: "fl-lane-title"))
        var rowTop = top + 24
        for bar in lane.bars {
            parts.append(drawBar(bar, top: rowTop))
            rowTop += Self.barRowHeight
        }
        var markRows = 0
        for mark in lane.marks where mark.kind != .boundary {
            parts.append(drawMark(mark, rowsTop: rowTop, rowsUsed: &markRows))
        }
        let bottom = rowTop + Double(markRows) * Self.markRowHeight + 4
        let guides = Set(offsets.values).sorted().map {
            Self.line(scale.x($0), top + 2, scale.x($0), bottom - 2, className: "fl-guide")
        }
        let rect =
            "<rect class=\"fl-lane\" x=\"\(Self.number(Self.margin))\" y=\"\(Self.number(top))\" "
            + "width=\"\(Self.number(width - 2 * Self.margin))\" height=\"\(Self.number(bottom - top))\" rx=\"4\"/>"
        elements.append(
            "<g class=\"fl-lane-group\" data-lane=\"\(SVGTimelineRenderer.escape(lane.title))\">" + rect
                + guides.joined() + parts.joined() + "</g>")
        y = bottom
    }

    /// A request as a bar from its arrival to its end (to the lane's end, dashed, when no end was
    /// seen), its method, path and status above it on the same side of every boundary as its
    /// start: the offending one red and marked `✗`, refreshes blue.
    private mutating func drawBar(_ bar: ViolationTimeline.Bar, top: Double) -> String {
        var classes = "fl-request"
        if bar.isRefresh { classes += " fl-refresh" }
        if bar.isOffending { classes += " fl-offending" }
        if bar.isBoundary { classes += " fl-logout" }
        let start = scale.x(bar.startOffsetNanoseconds)
        let end =
            bar.endSeq == nil
            ? width - Self.margin - 6 : scale.x(bar.endOffsetNanoseconds ?? bar.startOffsetNanoseconds)
        let status = bar.status.map { " → \($0)" } ?? ""
        let label = (bar.isOffending ? "✗ " : "") + bar.request + status
        let seqs = "seq \(bar.startSeq)" + (bar.endSeq.map { "–\($0)" } ?? ", no end seen")
        let times =
            "data-start-ns=\"\(bar.startOffsetNanoseconds)\""
            + (bar.endSeq == nil ? "" : " data-end-ns=\"\(bar.endOffsetNanoseconds ?? bar.startOffsetNanoseconds)\"")
        return
            "<g class=\"\(classes)\" \(times)><title>\(SVGTimelineRenderer.escape("\(seqs): \(label) (\(bar.note))"))</title>"
            + "<rect class=\"fl-bar\(bar.endSeq == nil ? " fl-bar-open" : "")\" x=\"\(Self.number(start))\" "
            + "y=\"\(Self.number(top + 17))\" width=\"\(Self.number(max(end - start, Self.minimumBarWidth)))\" "
            + "height=\"10\" rx=\"2\"/>"
            + place(
                label, fontSize: Font.bar, baseline: top + 13, preferred: start, anchor: start,
                className: "fl-bar-label")
            + "</g>"
    }

    /// A witness that is not a request: a dot at its instant with its note beside it, to the
    /// right or else to the left, in the first of the lane's mark rows where both fit. Where a
    /// boundary or the edge leaves too little room on both sides, the note is shortened on the
    /// roomier side (never moved away from its dot); the full note is in the tooltip and the list.
    private mutating func drawMark(_ mark: ViolationTimeline.Mark, rowsTop: Double, rowsUsed: inout Int) -> String {
        let x = scale.x(mark.offsetNanoseconds)
        let label = mark.note.isEmpty ? mark.event : mark.note
        let fontSize = Font.mark
        let labelWidth = TimelineLabelPlacer.width(label, fontSize: fontSize)
        // A note that would keep fewer than 12 characters waits for a row of its own.
        let shortest = min(labelWidth, 12 * TimelineLabelPlacer.characterWidth * fontSize)
        var row = 0
        while true {
            let top = rowsTop + Double(row) * Self.markRowHeight
            let baseline = top + 14
            let rows = Self.rows(baseline: baseline, fontSize: fontSize)
            let dot = TimelineLabelPlacer.Box(x0: x - 6, x1: x + 6, y0: top + 4, y1: top + 16)
            let right = placer.room(from: x + 9, rightwards: true, rows: rows.0, rows.1)
            let left = placer.room(from: x - 9, rightwards: false, rows: rows.0, rows.1)
            let rowIsEmpty = !placer.hasLabels(rows: min(dot.y0, rows.0), max(dot.y1, rows.1))
            guard !placer.overlapsLabels(dot), rowIsEmpty || max(right, left) >= shortest else {
                row += 1
                continue
            }
            rowsUsed = max(rowsUsed, row + 1)
            placer.claim(dot)
            let onTheRight = right >= labelWidth || (left < labelWidth && right >= left)
            let text = TimelineLabelPlacer.shortened(label, toFit: onTheRight ? right : left, fontSize: fontSize)
            let textWidth = TimelineLabelPlacer.width(text, fontSize: fontSize)
            let textX = onTheRight ? x + 9 : x - 9 - textWidth
            placer.claim(.init(x0: textX, x1: textX + textWidth, y0: rows.0, y1: rows.1))
            let cls = mark.kind == .event ? "fl-mark" : "fl-mark fl-mark-\(mark.kind.rawValue)"
            let note = "seq \(mark.seq) \(mark.event): \(mark.note)"
            return
                "<g class=\"\(cls)\" data-ns=\"\(mark.offsetNanoseconds)\"><title>\(SVGTimelineRenderer.escape(note))</title>"
                + "<circle cx=\"\(Self.number(x))\" cy=\"\(Self.number(top + 10))\" r=\"5\"/>"
                + Self.text(text, x: textX, baseline: baseline, className: "fl-mark-label") + "</g>"
        }
    }

    /// A dashed line per boundary from the lanes' top to their bottom, its label underneath
    /// beside it (right of the line, or left when that is taken), one row further down each time
    /// both sides are.
    private mutating func drawBoundaries(
        _ boundaries: [(mark: ViolationTimeline.Mark, x: Double)], from top: Double
    ) {
        let bottom = y
        var lowest = y
        for boundary in boundaries {
            // The witness's own words: `logout sent (boundary)`, `download failed`, a mark's label.
            let label =
                (boundary.mark.note.isEmpty ? boundary.mark.event : boundary.mark.note) + ", seq \(boundary.mark.seq)"
            let labelWidth = TimelineLabelPlacer.width(label, fontSize: Font.boundary)
            var text = ""
            for row in 0...boundaries.count {
                let baseline = bottom + 14 + Double(row) * 16
                let rows = Self.rows(baseline: baseline, fontSize: Font.boundary)
                let sides = [boundary.x + 5, boundary.x - 5 - labelWidth].map {
                    TimelineLabelPlacer.Box(x0: $0, x1: $0 + labelWidth, y0: rows.0, y1: rows.1)
                }
                if let side = sides.first(where: placer.isFree) {
                    placer.claim(side)
                    text = Self.text(label, x: side.x0, baseline: baseline, className: "fl-boundary-label")
                } else if row == boundaries.count {
                    text = place(
                        label, fontSize: Font.boundary, baseline: baseline, preferred: boundary.x + 5, anchor: nil,
                        className: "fl-boundary-label")
                } else {
                    continue
                }
                lowest = max(lowest, rows.1)
                break
            }
            let note = "seq \(boundary.mark.seq) \(boundary.mark.event): \(boundary.mark.note)"
            elements.append(
                "<g class=\"fl-boundary\"><title>\(SVGTimelineRenderer.escape(note))</title>"
                    + Self.line(boundary.x, top, boundary.x, bottom) + text + "</g>")
        }
        y = lowest + 6
    }

    /// A label placed by ``TimelineLabelPlacer/fit(_:fontSize:rows:_:preferred:anchor:)``
    /// nearest `preferred` on `anchor`'s side of every line (shortened if it must be; with
    /// `anchor` nil, on any side that has the room), and claimed.
    private mutating func place(
        _ label: String, fontSize: Double, baseline: Double, preferred: Double, anchor: Double?, className: String
    ) -> String {
        let rows = Self.rows(baseline: baseline, fontSize: fontSize)
        let anywhere =
            anchor == nil
            ? placer.nearestFree(
                width: TimelineLabelPlacer.width(label, fontSize: fontSize), rows: rows.0, rows.1, preferred: preferred)
            : nil
        let fitted =
            anywhere.map { (text: label, x: $0) }
            ?? placer.fit(
                label, fontSize: fontSize, rows: rows.0, rows.1, preferred: preferred, anchor: anchor ?? preferred)
        let labelWidth = TimelineLabelPlacer.width(fitted.text, fontSize: fontSize)
        placer.claim(.init(x0: fitted.x, x1: fitted.x + labelWidth, y0: rows.0, y1: rows.1))
        return Self.text(fitted.text, x: fitted.x, baseline: baseline, className: className)
    }
}
