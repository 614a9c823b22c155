/// A whole trace as read back: its header and its events in file (and seq) order.
public struct Trace: Sendable, Equatable {
    /// Line 1.
    public let header: TraceHeader
    /// Lines 2 and on.
    public let events: [TraceEvent]

    /// Makes a trace; `TraceReader` makes them from text.
    public init(header: TraceHeader, events: [TraceEvent]) {
        self.header = header
        self.events = events
    }

    /// The events of one kind, in order.
    public func events(_ kind: TraceEventKind) -> [TraceEvent] {
        events.filter { $0.kind == kind }
    }
}
