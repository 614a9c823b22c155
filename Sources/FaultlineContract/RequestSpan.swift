import FaultlineCore
public import FaultlineTrace

/// How long one client request lasted: from its `request.received` to the event that ended it,
/// so a picture can draw it as a bar even when the violation's witnesses name only one end.
public struct RequestSpan: Sendable, Equatable {
    /// `seq` of the `request.received` event.
    public var receivedSeq: UInt64
    /// `seq` of the event that ended the request.
    public var endSeq: UInt64
    /// Nanoseconds from the trace's first event to that end.
    public var endOffsetNanoseconds: UInt64
    /// The ending event: `response.delivered`, `flow.aborted` or `connection.closed`.
    public var ending: String
    /// The status the client was given, when it was given one.
    public var status: Int?

    /// Makes a span.
    public init(receivedSeq: UInt64, endSeq: UInt64, endOffsetNanoseconds: UInt64, ending: String, status: Int?) {
        self.receivedSeq = receivedSeq
        self.endSeq = endSeq
        self.endOffsetNanoseconds = endOffsetNanoseconds
        self.ending = ending
        self.status = status
    }
}

/// Finds the spans of a few requests (named by their `request.received` seq) in a stream of trace
/// events; it keeps only those requests' flows, so a long trace costs no memory.
public struct RequestSpanCollector: Sendable {
    private let wanted: Set<UInt64>
    private var startMono: UInt64?
    /// Flow → `request.received` seq, for wanted requests still open.
    private var open: [UInt64: UInt64] = [:]
    /// Client connection → its open wanted flows.
    private var byConnection: [UInt64: [UInt64]] = [:]
    /// The spans found, by `request.received` seq.
    public private(set) var spans: [UInt64: RequestSpan] = [:]

    /// Collects the spans of the requests received at `requests` (seqs).
    public init(requests: Set<UInt64>) { wanted = requests }

    /// Reads one event, in trace order.
    public mutating func consume(_ event: TraceEvent) {
        if startMono == nil { startMono = event.monoNanoseconds }
        let offset = event.monoNanoseconds - min(event.monoNanoseconds, startMono ?? 0)
        switch event.kind.rawValue {
        case "request.received":
            guard wanted.contains(event.seq), let flow = event.flow?.rawValue else { return }
            open[flow] = event.seq
            if let connection = event.connection?.rawValue { byConnection[connection, default: []].append(flow) }
        case "response.delivered", "flow.aborted":
            guard let flow = event.flow?.rawValue else { return }
            let status = event.kind.rawValue == "response.delivered" ? event.int("status").map { Int($0) } : nil
            end(flow, seq: event.seq, offset: offset, ending: event.kind.rawValue, status: status)
        case "connection.closed":
            guard let connection = event.connection?.rawValue,
                let flows = byConnection.removeValue(forKey: connection)
            else { return }
            for flow in flows { end(flow, seq: event.seq, offset: offset, ending: "connection.closed", status: nil) }
        default: return
        }
    }

    private mutating func end(_ flow: UInt64, seq: UInt64, offset: UInt64, ending: String, status: Int?) {
        guard let received = open.removeValue(forKey: flow) else { return }
        spans[received] = RequestSpan(
            receivedSeq: received, endSeq: seq, endOffsetNanoseconds: offset, ending: ending, status: status)
    }
}

extension ContractReport {
    /// `seq` of every `request.received` witness of the listed violations: the requests a
    /// picture draws as bars.
    public var witnessRequestSeqs: Set<UInt64> {
        Set(violations.flatMap { $0.timeline.filter { $0.event == "request.received" }.map(\.seq) })
    }
}

extension TraceFileReader {
    /// Reads the trace at `path` again for the spans of the requests received at `requests`.
    public static func requestSpans(path: String, requests: Set<UInt64>) throws(TraceInputError) -> [UInt64:
        RequestSpan]
    {
        var collector = RequestSpanCollector(requests: requests)
        guard !requests.isEmpty else { return [:] }
        try read(path: path, header: { _ in }, event: { collector.consume($0) })
        return collector.spans
    }
}
