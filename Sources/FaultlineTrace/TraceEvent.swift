public import FaultlineCore

/// One event line of a trace, as read back.
public struct TraceEvent: Sendable, Equatable {
    /// `seq`: 1-based position in the trace; strictly increasing in file order.
    public let seq: UInt64
    /// `wall`: wall-clock time, RFC 3339 UTC with microseconds.
    public let wall: String
    /// `mono_ns`: monotonic nanoseconds since the recorder started; never decreases along the file.
    public let monoNanoseconds: UInt64
    /// `event`: what happened.
    public let kind: TraceEventKind
    /// `conn`, when the event belongs to a connection.
    public let connection: ConnectionID?
    /// `flow`, when the event belongs to a flow.
    public let flow: FlowID?
    /// Every other key of the line (the fields the recorder was given, already redacted).
    public let attributes: [String: JSONValue]

    /// Makes an event; the reader makes them from lines.
    public init(
        seq: UInt64, wall: String, monoNanoseconds: UInt64, kind: TraceEventKind,
        connection: ConnectionID? = nil, flow: FlowID? = nil, attributes: [String: JSONValue] = [:]
    ) {
        self.seq = seq
        self.wall = wall
        self.monoNanoseconds = monoNanoseconds
        self.kind = kind
        self.connection = connection
        self.flow = flow
        self.attributes = attributes
    }
}
