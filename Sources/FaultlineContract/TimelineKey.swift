/// What a violation picture's axes and shapes mean, naming only what that picture draws: the
/// words under each picture of the HTML report (with swatches) and at the foot of a standalone one.
struct TimelineKey: Sendable {
    /// A shape the picture draws; its raw value is the HTML swatch's class.
    enum Shape: String, Sendable {
        case request, offending, refresh, open, witness, boundary
    }

    /// The axes: time to scale, seq labels, and the cut gaps when there are some.
    let axes: String
    /// Each shape drawn, with its meaning.
    let shapes: [(shape: Shape, meaning: String)]

    init(_ timeline: ViolationTimeline) {
        let bars = timeline.lanes.flatMap(\.bars)
        let marks = timeline.lanes.flatMap(\.marks)
        let scale = TimelineTimeScale(
            instants: Array(timeline.offsets.values), from: 0, to: TimelineDrawing.preferredWidth)
        axes =
            "Across: time since the trace began, to scale; each event is labelled with its seq"
            + (scale.breaks.isEmpty ? "." : ". A break in the axis cuts an idle gap short and says how long it was.")
        var shapes: [(Shape, String)] = []
        if bars.contains(where: { !$0.isOffending && !$0.isRefresh }) {
            shapes.append((.request, "a request, from received to answered"))
        }
        if bars.contains(where: \.isOffending) || marks.contains(where: { $0.kind == .offending }) {
            shapes.append((.offending, "what broke the clause (✗)"))
        }
        if bars.contains(where: { $0.isRefresh && !$0.isOffending }) || marks.contains(where: { $0.kind == .refresh }) {
            shapes.append((.refresh, "a refresh"))
        }
        if bars.contains(where: { $0.endSeq == nil }) { shapes.append((.open, "no answer seen")) }
        if marks.contains(where: { $0.kind == .event }) { shapes.append((.witness, "another witness")) }
        if marks.contains(where: { $0.kind == .boundary }) { shapes.append((.boundary, "the boundary")) }
        self.shapes = shapes
    }

    /// The key in words, for a picture without swatches: `… Red bar: what broke the clause (✗); …`.
    var text: String {
        let names: [Shape: String] = [
            .request: "grey bar", .offending: "red", .refresh: "blue", .open: "dashed bar", .witness: "dot",
            .boundary: "dashed red line",
        ]
        return axes + " "
            + shapes.map { "\(names[$0.shape] ?? $0.shape.rawValue): \($0.meaning)" }.joined(separator: "; ")
            + "."
    }
}
