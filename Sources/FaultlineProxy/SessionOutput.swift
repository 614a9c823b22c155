import FaultlineCore
import FaultlineTrace

/// Collects what one session input produces, coalescing consecutive writes to the same side into
/// one buffer so that a response head and the body bytes read with it leave in one write.
///
/// Trace entries go first, ahead of everything else the input produced: they say what the input
/// decided, the driver records them before it acts, and a trace entry between two writes would
/// otherwise split one socket write into two. Rule questions (`decide`) go last: the driver
/// answers each at once and carries out the answer's actions on the spot, so they must follow
/// everything the input produced before them (HTTP/2 frames the connection queued earlier must
/// reach the socket before the frames of the answer, or HPACK's dynamic table would be read out
/// of order).
struct SessionOutput {
    private(set) var actions: [ProxyAction] = []
    /// The trace entries at the front of `actions`.
    private var traceCount = 0
    private var questions: [ProxyAction] = []
    private var toClient: [UInt8] = []
    private var toUpstream: [UInt8] = []
    private var upstreamFlow: FlowID?

    mutating func writeToClient(_ bytes: some Collection<UInt8>) {
        toClient.append(contentsOf: bytes)
    }

    /// An encoded array becomes the buffer itself when nothing waits before it (no copy).
    mutating func writeToClient(_ bytes: [UInt8]) {
        if toClient.isEmpty { toClient = bytes } else { toClient.append(contentsOf: bytes) }
    }

    mutating func writeToUpstream(_ flow: FlowID, _ bytes: some Collection<UInt8>) {
        guard !bytes.isEmpty else { return }
        if let upstreamFlow, upstreamFlow != flow { flushWrites() }
        upstreamFlow = flow
        toUpstream.append(contentsOf: bytes)
    }

    /// An encoded array becomes the buffer itself when nothing waits before it (no copy).
    mutating func writeToUpstream(_ flow: FlowID, _ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if let upstreamFlow, upstreamFlow != flow { flushWrites() }
        upstreamFlow = flow
        if toUpstream.isEmpty { toUpstream = bytes } else { toUpstream.append(contentsOf: bytes) }
    }

    /// Appends an action after the writes queued so far, so the driver sees them in order.
    mutating func append(_ action: ProxyAction) {
        if case .decide = action {
            questions.append(action)
            return
        }
        flushWrites()
        makeRoom()
        actions.append(action)
    }

    /// Adds a trace entry (ahead of the input's other actions; see above).
    mutating func trace(_ entry: TraceEntry) {
        // Into the front of the one array (a second array joined at the end cost an allocation
        // per batch); what it moves is a handful of actions at most.
        makeRoom()
        actions.insert(.trace(entry), at: traceCount)
        traceCount += 1
    }

    /// The actions of this input: trace entries first, then writes and actions in order, then
    /// rule questions.
    mutating func finish() -> [ProxyAction] {
        flushWrites()
        if !questions.isEmpty { actions.append(contentsOf: questions) }
        return actions
    }

    /// Room for a typical input's actions at the first one: growing the array 1, 2, 4, 8 cost
    /// three allocations an input in the microbenchmark; an input with no action allocates none.
    private mutating func makeRoom() {
        if actions.capacity == 0 { actions.reserveCapacity(8) }
    }

    private mutating func flushWrites() {
        if !toClient.isEmpty || !toUpstream.isEmpty { makeRoom() }
        if !toClient.isEmpty {
            actions.append(.writeToClient(toClient))
            toClient = []
        }
        if !toUpstream.isEmpty, let upstreamFlow {
            actions.append(.writeToUpstream(upstreamFlow, toUpstream))
            toUpstream = []
        }
    }
}
