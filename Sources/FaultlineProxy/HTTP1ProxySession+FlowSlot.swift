import FaultlineFlow

/// The flow core of the request an HTTP/1 session is serving, and that flow's upstream: the
/// biggest parts of a session (about 2 kB together, inline), kept out of line so that a
/// connection between requests, or one that never sent a request, does not carry them. A session
/// has a slot from its request's flow (or upstream) until both are nil at the end of an input
/// (memory per idle connection: Benchmarks/idle).
///
/// Not in the `exchanging` state's payload: `UpstreamFlowHost` (shared with HTTP/2 streams and
/// duplicates) mutates `flow` and `upstream` in place on every read and write; behind an enum
/// payload each access would move the machine out of the state and back.
///
/// The two sit at fixed addresses in one allocation the slot owns, and the session reaches them
/// through addressors and these pointers. As a class's stored properties they were read through
/// copies and checked for exclusive access at run time on every access: 61% more instructions
/// per request for the session in `Benchmarks/micro --instructions`. A getter called on a value
/// through these pointers still gets a copy; `inspectFlow` and `inspectUpstream` avoid it.
final class FlowSlot {
    /// Nil for `CONNECT`, which never reaches the core, and after the flow's end while an upgraded
    /// connection's upstream is handed to its tunnel.
    let flow: UnsafeMutablePointer<FlowMachine?>
    /// HTTP/1.1, or a stream of an HTTP/2 connection.
    let upstream: UnsafeMutablePointer<UpstreamCodec?>

    private static let upstreamOffset =
        (MemoryLayout<FlowMachine?>.size + MemoryLayout<UpstreamCodec?>.alignment - 1)
        / MemoryLayout<UpstreamCodec?>.alignment * MemoryLayout<UpstreamCodec?>.alignment

    init(flow: FlowMachine? = nil, upstream: UpstreamCodec? = nil) {
        let storage = UnsafeMutableRawPointer.allocate(
            byteCount: Self.upstreamOffset + MemoryLayout<UpstreamCodec?>.size,
            alignment: max(MemoryLayout<FlowMachine?>.alignment, MemoryLayout<UpstreamCodec?>.alignment))
        self.flow = storage.initializeMemory(as: FlowMachine?.self, to: flow)
        self.upstream = (storage + Self.upstreamOffset).initializeMemory(as: UpstreamCodec?.self, to: upstream)
    }

    deinit {
        flow.deinitialize(count: 1)
        upstream.deinitialize(count: 1)
        UnsafeMutableRawPointer(flow).deallocate()
    }

    /// What `query` reads of the flow, nil without one. A getter called on a value reached through
    /// a pointer gets a copy of it (the optimizer cannot rule out writes to that memory during
    /// the call): for the machine or the codec, a kilobyte and dozens of references, several
    /// percent of the session's instructions per request. Through an `inout` parameter, which is
    /// exclusive, the value is borrowed where it lies. A single-payload enum keeps its payload at
    /// offset 0, so the payload is reached through a pointer of its own type.
    func inspectFlow<Result>(_ query: (inout FlowMachine) -> Result) -> Result? {
        guard case .some = flow.pointee else { return nil }
        return query(&UnsafeMutableRawPointer(flow).assumingMemoryBound(to: FlowMachine.self).pointee)
    }

    /// What `query` reads of the upstream codec, nil without one; see `inspectFlow`.
    func inspectUpstream<Result>(_ query: (inout UpstreamCodec) -> Result) -> Result? {
        guard hasUpstream else { return nil }
        return query(&UnsafeMutableRawPointer(upstream).assumingMemoryBound(to: UpstreamCodec.self).pointee)
    }

    var hasUpstream: Bool {
        guard case .some = upstream.pointee else { return false }
        return true
    }

    var isEmpty: Bool {
        guard case .none = flow.pointee, case .none = upstream.pointee else { return false }
        return true
    }

    /// What a session without a slot reads: no flow, no upstream. Never written.
    nonisolated(unsafe) static let vacant = FlowSlot()
}

extension HTTP1ProxySession {
    /// The flow core of the request being served (nil between requests and for `CONNECT`).
    var flow: FlowMachine? {
        unsafeAddress { UnsafePointer((slot ?? FlowSlot.vacant).flow) }
        unsafeMutableAddress { writableSlot().flow }
    }

    /// The flow's upstream, once the flow asked for one.
    var upstream: UpstreamCodec? {
        unsafeAddress { UnsafePointer((slot ?? FlowSlot.vacant).upstream) }
        unsafeMutableAddress { writableSlot().upstream }
    }

    /// Ends an input: its actions, and the slot given back once the flow and its upstream are
    /// both gone. Checked here, at the end of every input, rather than where they are set to nil:
    /// an assignment through the addressor cannot tell nil from a value, and makes a slot.
    mutating func finish(_ output: inout SessionOutput) -> [ProxyAction] {
        if slot?.isEmpty == true { slot = nil }
        return output.finish()
    }

    /// The slot to write to: made when there is none, and copied when another copy of the session
    /// shares it (sessions are values).
    private mutating func writableSlot() -> FlowSlot {
        if !isKnownUniquelyReferenced(&slot) {
            slot = FlowSlot(flow: slot?.flow.pointee, upstream: slot?.upstream.pointee)
        }
        return slot.unsafelyUnwrapped
    }
}
