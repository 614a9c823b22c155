import FaultlineCore

/// The HTTP/2 stream serving each flow of a session, kept in flow order.
///
/// A sorted array rather than a dictionary, for the reason `HTTP2StreamTable` is one: the session
/// asks for a flow's stream several times for every upstream input and every flow-side question
/// (about ten times a request under `h2load -m 10`), and a dictionary hashed the flow ID each
/// time. Here a look-up is a binary search over the open streams' flows, and since a session
/// makes its flows in ascending order a new one goes at the end.
struct FlowStreamIndex {
    private var entries: [(flow: FlowID, stream: Int32)] = []

    var isEmpty: Bool { entries.isEmpty }

    /// The stream of `flow`; setting nil forgets the flow.
    subscript(flow: FlowID) -> Int32? {
        get {
            let index = firstIndex(notBelow: flow)
            return holds(flow, at: index) ? entries[index].stream : nil
        }
        set {
            let index = firstIndex(notBelow: flow)
            switch (newValue, holds(flow, at: index)) {
            case (let stream?, true): entries[index].stream = stream
            case (let stream?, false): entries.insert((flow, stream), at: index)
            case (nil, true): entries.remove(at: index)
            case (nil, false): break
            }
        }
    }

    /// Whether the entry at `index`, as `firstIndex(notBelow: flow)` found it, is `flow`'s.
    private func holds(_ flow: FlowID, at index: Int) -> Bool {
        entries.holds(flow, at: index) { $0.flow }
    }

    /// The position of the first entry whose flow is `flow` or later (`entries.count` when none is).
    private func firstIndex(notBelow flow: FlowID) -> Int {
        entries.firstIndex(notBelow: flow) { $0.flow }
    }
}
