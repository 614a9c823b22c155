import Foundation

/// The x axis of a violation picture: time since the trace's first event, to scale. A gap ten times
/// longer than the rest of the time drawn together (a client idle for a second between two bursts
/// of a few milliseconds) would squeeze everything else into a corner, so it is cut to a fixed
/// width and marked as a break, as broken-axis charts do; every stretch keeps the same scale.
struct TimelineTimeScale: Sendable, Equatable {
    /// A stretch of time drawn to scale.
    struct Segment: Sendable, Equatable {
        /// Nanoseconds since the trace's first event, at its start and end.
        var start: UInt64
        var end: UInt64
        /// Where its start is drawn.
        var x: Double
    }

    /// A gap cut short, between two segments.
    struct Break: Sendable, Equatable {
        /// The instants either side of it.
        var from: UInt64
        var to: UInt64
        /// Where it is drawn.
        var x0: Double
        var x1: Double
        /// `gap 1.2 s`.
        var label: String
    }

    /// A labelled instant of the axis.
    struct Tick: Sendable, Equatable {
        var nanoseconds: UInt64
        var x: Double
        /// `4 ms`, `1.25 s`.
        var label: String
    }

    /// The width a cut gap is drawn with.
    static let breakWidth = 30.0
    /// The least distance between two ticks.
    static let tickSpacing = 80.0
    /// How many times longer than the rest of the time drawn a gap must be to be cut.
    static let breakRatio: UInt64 = 10
    static let maximumBreaks = 3

    let segments: [Segment]
    let breaks: [Break]
    /// Pixels per nanosecond, the same in every segment (0 when every instant is the same).
    let scale: Double
    /// The ticks, left to right: round values a step apart, and a segment's start when no round
    /// value falls inside it.
    let ticks: [Tick]

    /// The scale drawing `instants` (nanoseconds since the trace's first event) between `left`
    /// and `right`.
    init(instants: [UInt64], from left: Double, to right: Double) {
        let times = Set(instants).sorted()
        guard let first = times.first, let last = times.last, last > first else {
            let only = times.first ?? 0
            segments = [Segment(start: only, end: only, x: left)]
            breaks = []
            scale = 0
            ticks = [Tick(nanoseconds: only, x: left, label: Self.label(only, step: max(only / 10, 1)))]
            return
        }
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        var cut: Set<Int> = []
        while cut.count < Self.maximumBreaks {
            let drawn = (last - first) - cut.reduce(0) { $0 + gaps[$1] }
            guard
                let (index, gap) = gaps.enumerated().filter({ !cut.contains($0.offset) })
                    .max(by: { $0.element < $1.element }),
                drawn > gap, gap >= Self.breakRatio * (drawn - gap)
            else { break }
            cut.insert(index)
        }
        var spans: [(start: UInt64, end: UInt64)] = []
        var start = first
        for index in cut.sorted() {
            spans.append((start, times[index]))
            start = times[index + 1]
        }
        spans.append((start, last))
        let drawn = spans.reduce(0) { $0 + ($1.end - $1.start) }
        let scale = (right - left - Double(cut.count) * Self.breakWidth) / Double(drawn)
        var segments: [Segment] = []
        var breaks: [Break] = []
        var x = left
        for span in spans {
            if let previous = segments.last {
                breaks.append(
                    Break(
                        from: previous.end, to: span.start, x0: x, x1: x + Self.breakWidth,
                        label: "gap " + Self.duration(span.start - previous.end)))
                x += Self.breakWidth
            }
            segments.append(Segment(start: span.start, end: span.end, x: x))
            x += Double(span.end - span.start) * scale
        }
        self.segments = segments
        self.breaks = breaks
        self.scale = scale
        ticks = Self.ticks(segments: segments, scale: scale)
    }

    /// Where `nanoseconds` is drawn: in its segment to scale, inside a break in proportion, and
    /// at the ends beyond them.
    func x(_ nanoseconds: UInt64) -> Double {
        if let segment = segments.first(where: { $0.start <= nanoseconds && nanoseconds <= $0.end }) {
            return segment.x + Double(nanoseconds - segment.start) * scale
        }
        if let cut = breaks.first(where: { $0.from < nanoseconds && nanoseconds < $0.to }) {
            return cut.x0 + (cut.x1 - cut.x0) * Double(nanoseconds - cut.from) / Double(cut.to - cut.from)
        }
        guard let first = segments.first, let last = segments.last else { return 0 }
        return nanoseconds < first.start ? first.x : last.x + Double(last.end - last.start) * scale
    }

    /// Round instants at least ``tickSpacing`` apart; a segment too short for one gets a tick at
    /// its start, labelled one decimal finer.
    private static func ticks(segments: [Segment], scale: Double) -> [Tick] {
        let step = niceStep(tickSpacing / scale)
        var ticks: [Tick] = []
        for segment in segments {
            var instant = (segment.start + step - 1) / step * step
            var inside = 0
            while instant <= segment.end {
                ticks.append(
                    Tick(
                        nanoseconds: instant, x: segment.x + Double(instant - segment.start) * scale,
                        label: label(instant, step: step)))
                inside += 1
                instant += step
            }
            if inside == 0 {
                ticks.append(
                    Tick(
                        nanoseconds: segment.start, x: segment.x,
                        label: label(segment.start, step: max(step / 10, 1))))
            }
        }
        return ticks
    }

    /// The least of 1, 2 and 5 times a power of ten nanoseconds that is at least `raw`.
    static func niceStep(_ raw: Double) -> UInt64 {
        guard raw.isFinite, raw > 1 else { return 1 }
        var power: UInt64 = 1
        while Double(power) * 10 <= raw { power *= 10 }
        for factor: UInt64 in [1, 2, 5, 10] where Double(power * factor) >= raw { return power * factor }
        return power * 10
    }

    /// `nanoseconds` in the unit a tenth of `step` is worth at least (s, ms, µs or ns), with as
    /// many decimals as `step` needs: `4.5 ms`, `1508 ms`, `1.25 s`.
    static func label(_ nanoseconds: UInt64, step: UInt64) -> String {
        let (unit, name) = unit(of: step * 10)
        // 1e-9 keeps a step of exactly 0.1 unit at one decimal when log10 rounds below -1.
        let decimals = max(0, Int((-log10(Double(step) / unit) - 1e-9).rounded(.up)))
        return String(format: "%.\(decimals)f", Double(nanoseconds) / unit) + " " + name
    }

    /// A length of time in two significant figures: `1.2 s`, `350 ms`, `12 µs`.
    static func duration(_ nanoseconds: UInt64) -> String {
        let (unit, name) = unit(of: nanoseconds)
        let value = Double(nanoseconds) / unit
        return String(format: value < 10 ? "%.1f" : "%.0f", value) + " " + name
    }

    private static func unit(of nanoseconds: UInt64) -> (Double, String) {
        switch nanoseconds {
        case 1_000_000_000...: (1e9, "s")
        case 1_000_000...: (1e6, "ms")
        case 1_000...: (1e3, "µs")
        default: (1, "ns")
        }
    }
}
