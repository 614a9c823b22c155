import FaultlineTrace

/// The client requests in progress, from `request.received` to the event that ends them.
///
/// A flow ends at `response.delivered` (answered), `flow.aborted` (the client left), the close of
/// its client connection while still open (broken after an `upstream.error` or `protocol.error`,
/// or cut), or the end of the trace. Only open flows are kept, so memory follows concurrency,
/// not trace length.
struct FlowTable {
    private struct Open {
        let request: ClientRequest
        var forwarded = false
        var body: BodySummary?
        var captured: CapturedPrefix?
        var errorCode: String?
    }

    private var open: [UInt64: Open] = [:]
    private var byConnection: [UInt64: [UInt64]] = [:]

    /// Requests in progress.
    var count: Int { open.count }

    mutating func start(_ request: ClientRequest) {
        open[request.flow] = Open(request: request)
        if let connection = request.connection { byConnection[connection, default: []].append(request.flow) }
    }

    /// `request.forwarded`: the request reached the upstream, with this body (and, in a capture,
    /// its first bytes).
    mutating func forwarded(flow: UInt64, body: BodySummary?, captured: CapturedPrefix?) {
        open[flow]?.forwarded = true
        if let body { open[flow]?.body = body }
        if let captured { open[flow]?.captured = captured }
    }

    /// `upstream.error` or `protocol.error` on a flow: its answer, if any, is the proxy's error page.
    mutating func failed(flow: UInt64, code: String?) {
        open[flow]?.errorCode = code ?? "error"
    }

    /// Ends a flow; nil when it is not open (a duplicate copy, a tunnel, a flow already ended).
    mutating func end(
        flow: UInt64, ending: TracedOutcome.Ending, status: Int?, synthetic: Bool, seq: UInt64, mono: UInt64
    ) -> (ClientRequest, TracedOutcome)? {
        guard let entry = open.removeValue(forKey: flow) else { return nil }
        if let connection = entry.request.connection {
            byConnection[connection]?.removeAll { $0 == flow }
            if byConnection[connection]?.isEmpty == true { byConnection[connection] = nil }
        }
        let outcome = TracedOutcome(
            ending: ending, status: status, synthetic: synthetic, errorCode: entry.errorCode, endSeq: seq,
            endMono: mono,
            forwarded: entry.forwarded, body: entry.body, captured: entry.captured)
        return (entry.request, outcome)
    }

    /// Ends every flow still open on a client connection that closed.
    mutating func endConnection(_ connection: UInt64, seq: UInt64, mono: UInt64) -> [(ClientRequest, TracedOutcome)] {
        guard let flows = byConnection[connection] else { return [] }
        return flows.compactMap { end(flow: $0, ending: .failed, status: nil, synthetic: false, seq: seq, mono: mono) }
    }

    /// Ends every flow still open when the trace ends, in arrival order.
    mutating func endAll(seq: UInt64, mono: UInt64) -> [(ClientRequest, TracedOutcome)] {
        let flows = open.values.map(\.request).sorted { $0.seq < $1.seq }.map(\.flow)
        return flows.compactMap {
            end(flow: $0, ending: .unfinished, status: nil, synthetic: false, seq: seq, mono: mono)
        }
    }
}
