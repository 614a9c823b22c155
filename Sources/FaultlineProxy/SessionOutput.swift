import FaultlineCore

/// Collects what one session input produces, coalescing consecutive writes to the same side into
/// one buffer so that a response head and the body bytes read with it leave in one write.
struct SessionOutput {
    private(set) var actions: [ProxyAction] = []
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
        flushWrites()
        actions.append(action)
    }

    /// The actions of this input, writes included.
    mutating func finish() -> [ProxyAction] {
        flushWrites()
        return actions
    }

    private mutating func flushWrites() {
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
