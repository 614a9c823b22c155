public import FaultlineCore

/// One event to record, as a value: what a sans-I/O layer hands its driver instead of calling
/// `TraceRecorder.record` itself. The recorder gives it its `seq` and times when it is recorded.
public struct TraceEntry: Sendable, Equatable {
    public var kind: TraceEventKind
    /// The client connection it concerns, if any.
    public var connection: ConnectionID?
    /// The flow it concerns, if any.
    public var flow: FlowID?
    /// The fields after `event`, `conn` and `flow`, in order (see `TraceRecorder.record`).
    public var fields: [TraceField]

    public init(
        _ kind: TraceEventKind, connection: ConnectionID? = nil, flow: FlowID? = nil, _ fields: [TraceField] = []
    ) {
        self.kind = kind
        self.connection = connection
        self.flow = flow
        self.fields = fields
    }
}

extension TraceRecorder {
    /// Records an entry a sans-I/O layer asked for.
    public func record(_ entry: TraceEntry) {
        record(entry.kind, connection: entry.connection, flow: entry.flow, entry.fields)
    }

    /// Records an entry, encoding it in the caller's `scratch` (see `TraceScratch`).
    public func record(_ entry: TraceEntry, encodingIn scratch: inout TraceScratch) {
        record(entry.kind, connection: entry.connection, flow: entry.flow, entry.fields, encodingIn: &scratch)
    }
}
