/// Where a violation picture's labels go. Widths are estimated for the monospace font the picture
/// uses (its glyphs are 0.6 em wide in DejaVu Sans Mono and Liberation Mono; 0.62 leaves room, and
/// a character outside ASCII counts a whole em, in case it comes from a wider fallback font). Each
/// label is placed clear of the labels placed before it and of the vertical lines no label may
/// cross (the boundaries), nearest to where it belongs, and shortened with `…` only when no free
/// stretch of its row is wide enough.
struct TimelineLabelPlacer {
    /// A label's extent, in the picture's coordinates (y grows downwards).
    struct Box: Sendable, Equatable {
        var x0: Double
        var x1: Double
        var y0: Double
        var y1: Double

        func overlaps(rows y0: Double, _ y1: Double) -> Bool { self.y0 < y1 && y0 < self.y1 }
    }

    /// A vertical line labels keep off.
    struct Barrier: Sendable, Equatable {
        var x: Double
        var y0: Double
        var y1: Double
    }

    /// Clearance around labels and lines.
    static let clearance = 4.0
    static let characterWidth = 0.62

    /// The estimated width of `text` at `fontSize`.
    static func width(_ text: String, fontSize: Double) -> Double {
        text.unicodeScalars.reduce(0) { $0 + ($1.isASCII ? characterWidth : 1) } * fontSize
    }

    /// Labels stay between these.
    let minX: Double
    let maxX: Double
    private(set) var barriers: [Barrier] = []
    private(set) var boxes: [Box] = []

    init(minX: Double, maxX: Double) {
        self.minX = minX
        self.maxX = maxX
    }

    mutating func add(_ barrier: Barrier) { barriers.append(barrier) }
    mutating func claim(_ box: Box) { boxes.append(box) }

    /// Ends every line at `y` (they are added before what they cross is laid out, so at first
    /// they reach down without end).
    mutating func endBarriers(at y: Double) {
        for index in barriers.indices { barriers[index].y1 = min(barriers[index].y1, y) }
    }

    /// Whether `box` covers a label (lines aside: a dot may sit on a boundary).
    func overlapsLabels(_ box: Box) -> Bool {
        boxes.contains { $0.overlaps(rows: box.y0, box.y1) && box.x0 < $0.x1 && $0.x0 < box.x1 }
    }

    /// Whether any label takes part of rows `y0...y1`.
    func hasLabels(rows y0: Double, _ y1: Double) -> Bool { boxes.contains { $0.overlaps(rows: y0, y1) } }

    /// Whether `box` is inside the picture and clear of every label and line.
    func isFree(_ box: Box) -> Bool {
        box.x0 >= minX && box.x1 <= maxX
            && !blocked(rows: box.y0, box.y1).contains { box.x0 < $0.upperBound && $0.lowerBound < box.x1 }
    }

    /// The left edge nearest `preferred` where a `width`-wide label in rows `y0...y1` is free,
    /// the label inside `stretch` when one is given.
    func nearestFree(
        width: Double, rows y0: Double, _ y1: Double, preferred: Double, within stretch: ClosedRange<Double>? = nil
    ) -> Double? {
        let blocked = blocked(rows: y0, y1)
        let low = max(minX, stretch?.lowerBound ?? minX)
        let high = min(maxX, stretch?.upperBound ?? maxX)
        let candidates = [preferred, low, high - width] + blocked.flatMap { [$0.upperBound, $0.lowerBound - width] }
        return
            candidates
            .filter { left in
                left >= low && left + width <= high
                    && !blocked.contains { left < $0.upperBound && $0.lowerBound < left + width }
            }
            .min { abs($0 - preferred) < abs($1 - preferred) }
    }

    /// `text` at the free left edge nearest `preferred` in rows `y0...y1`, on the same side of
    /// every line as `anchor` (a label on the wrong side of a boundary would tell the wrong
    /// story); when the free stretch there is too narrow, as much of it as the stretch holds,
    /// ending in `…`.
    func fit(_ text: String, fontSize: Double, rows y0: Double, _ y1: Double, preferred: Double, anchor: Double)
        -> (text: String, x: Double)
    {
        let stretch = self.stretch(around: anchor, rows: y0, y1)
        let width = Self.width(text, fontSize: fontSize)
        if let left = nearestFree(width: width, rows: y0, y1, preferred: preferred, within: stretch) {
            return (text, left)
        }
        return (
            Self.shortened(text, toFit: stretch.upperBound - stretch.lowerBound, fontSize: fontSize), stretch.lowerBound
        )
    }

    /// The free stretch of rows `y0...y1` around `x` between the nearest lines and labels (right
    /// of what covers `x` itself: a request starting on a boundary is labelled after it).
    func stretch(around x: Double, rows y0: Double, _ y1: Double) -> ClosedRange<Double> {
        let blocked = blocked(rows: y0, y1)
        var point = x
        while let covering = blocked.first(where: { $0.lowerBound < point && point < $0.upperBound }) {
            point = covering.upperBound
        }
        let low = (blocked.map(\.upperBound).filter { $0 <= point } + [minX]).max()!
        let high = max((blocked.map(\.lowerBound).filter { $0 >= point } + [maxX]).min()!, low)
        return low...high
    }

    /// Left edges for labels of `widths` that belong at `centres` (in increasing order), in one
    /// row: each centred on its place unless its neighbours need the room, then pushed aside just
    /// enough, order kept (so leaders to the places never cross), inside the picture. Left to
    /// right each label takes its place or the first one after its left neighbour; right to left
    /// each gives back what it took past its right neighbour or the edge.
    func spread(centres: [Double], widths: [Double]) -> [Double] {
        var lefts = zip(centres, widths).map { $0 - $1 / 2 }
        for index in lefts.indices {
            let floor = index == 0 ? minX : lefts[index - 1] + widths[index - 1] + Self.clearance
            lefts[index] = max(lefts[index], floor)
        }
        for index in lefts.indices.reversed() {
            let ceiling = index == lefts.count - 1 ? maxX : lefts[index + 1] - Self.clearance
            lefts[index] = min(lefts[index], ceiling - widths[index])
        }
        return lefts
    }

    /// `text`, or as much of it as `width` holds ending in `…` (empty when not even that fits).
    static func shortened(_ text: String, toFit width: Double, fontSize: Double) -> String {
        guard Self.width(text, fontSize: fontSize) > width else { return text }
        var shortened = Substring(text)
        while !shortened.isEmpty, Self.width(shortened + "…", fontSize: fontSize) > width {
            shortened = shortened.dropLast()
        }
        return shortened.isEmpty ? "" : shortened + "…"
    }

    /// The free width in rows `y0...y1` from `x` rightwards (`rightwards: false`: leftwards) to
    /// the first label, line or edge.
    func room(from x: Double, rightwards: Bool, rows y0: Double, _ y1: Double) -> Double {
        let blocked = blocked(rows: y0, y1)
        if blocked.contains(where: { $0.contains(x) }) { return 0 }
        if rightwards {
            return (blocked.map(\.lowerBound).filter { $0 > x } + [maxX]).min()! - x
        }
        return x - (blocked.map(\.upperBound).filter { $0 < x } + [minX]).max()!
    }

    /// The x ranges labels and lines already take in rows `y0...y1`, with clearance.
    private func blocked(rows y0: Double, _ y1: Double) -> [ClosedRange<Double>] {
        boxes.filter { $0.overlaps(rows: y0, y1) }.map { ($0.x0 - Self.clearance)...($0.x1 + Self.clearance) }
            + barriers.filter { $0.y0 < y1 && y0 < $0.y1 }.map { ($0.x - Self.clearance)...($0.x + Self.clearance) }
    }
}
