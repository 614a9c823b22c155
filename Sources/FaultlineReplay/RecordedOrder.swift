import FaultlineCapture

/// The interleaving `--order recorded` reproduces: which recorded steps (requests received,
/// responses delivered, marks) came before each replayed response's delivery, and which of them
/// this run has reached.
///
/// Theory of operation: the capture's timeline is cut down to the steps a replay can see again —
/// the requests and responses of exchanges it replays, and marks. A response is released once
/// every step before its recorded delivery has happened in this run, except its own request's
/// arrival (which just happened) and other flows' steps that cannot come before it (none; the
/// recording says they did). Steps of this run are matched to recorded ones by the exchange a
/// live request was matched to, and marks by label, in order. Not thread-safe: `ReplaySource`
/// guards it.
struct RecordedOrder {
    /// A step of the recording, as people read it in a divergence report.
    struct Step: Sendable {
        let entry: TimelineEntry
        let summary: String
    }

    let steps: [Step]
    private var happened: [Bool]
    /// Per recorded flow: the steps before its delivery, its own received step left out.
    private let gates: [Int64: [Int]]
    private let receivedStep: [Int64: Int]
    private let deliveredStep: [Int64: Int]

    init(capture: Capture) {
        let replayed = Dictionary(uniqueKeysWithValues: capture.answeredExchanges.map { ($0.flow, $0) })
        var steps: [Step] = []
        var received: [Int64: Int] = [:]
        var delivered: [Int64: Int] = [:]
        for entry in capture.timeline {
            switch entry.kind {
            case .received(let flow):
                guard let exchange = replayed[flow] else { continue }
                received[flow] = steps.count
                steps.append(
                    Step(entry: entry, summary: "request \(Self.describe(exchange)) (recorded flow \(flow)) received"))
            case .delivered(let flow):
                guard let exchange = replayed[flow] else { continue }
                delivered[flow] = steps.count
                steps.append(
                    Step(
                        entry: entry,
                        summary: "response to \(Self.describe(exchange)) (recorded flow \(flow)) delivered"))
            case .mark(let label):
                steps.append(Step(entry: entry, summary: "mark '\(label)'"))
            }
        }
        var gates: [Int64: [Int]] = [:]
        for (flow, end) in delivered {
            gates[flow] = (0..<end).filter { $0 != received[flow] }
        }
        self.steps = steps
        self.gates = gates
        receivedStep = received
        deliveredStep = delivered
        happened = Array(repeating: false, count: steps.count)
    }

    static func describe(_ exchange: CapturedExchange) -> String {
        let request = exchange.upstreamRequest ?? exchange.clientRequest
        return "\(request.method) \(request.url)"
    }

    mutating func received(_ flow: Int64) {
        if let step = receivedStep[flow] { happened[step] = true }
    }

    mutating func delivered(_ flow: Int64) {
        if let step = deliveredStep[flow] { happened[step] = true }
    }

    /// The next recorded mark with this label that has not happened yet happens now.
    mutating func mark(_ label: String) {
        for (index, step) in steps.enumerated() where !happened[index] {
            if case .mark(label) = step.entry.kind {
                happened[index] = true
                return
            }
        }
    }

    /// The steps recorded flow `flow`'s response still waits for (empty: release it).
    func missing(before flow: Int64) -> [Step] {
        (gates[flow] ?? []).filter { !happened[$0] }.map { steps[$0] }
    }

    /// The recorded steps this run has not reached yet, in recorded order (for a divergence report).
    func pending(limit: Int) -> [Step] {
        Array(steps.indices.filter { !happened[$0] }.prefix(limit).map { steps[$0] })
    }

    /// The last recorded step this run has reached, counting from the start without a gap.
    var reachedThrough: Step? {
        guard let firstMissing = happened.firstIndex(of: false) else { return steps.last }
        return firstMissing > 0 ? steps[firstMissing - 1] : nil
    }
}
