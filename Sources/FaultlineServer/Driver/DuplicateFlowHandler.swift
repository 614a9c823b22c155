import FaultlineCore
import FaultlineFlow
import FaultlinePosix
import FaultlineProxy
import FaultlineTrace

/// Drives one copy made by a `duplicate` rule (a `DuplicateFlowSession`) on its event loop: the
/// same upstream links, pool and timers as any flow, and no client.
final class DuplicateFlowHandler: UpstreamLinksOwner {
    private var session: DuplicateFlowSession
    private let context: LoopContext
    private let upstreams: UpstreamLinks
    private let timers: TimerSet<FlowTimer>
    private var queue: [() -> [ProxyAction]] = []
    private var draining = false
    private var finished = false

    init(_ session: DuplicateFlowSession, context: LoopContext) {
        self.session = session
        self.context = context
        self.upstreams = UpstreamLinks(context: context)
        self.timers = TimerSet(loop: context.loop)
        upstreams.owner = self
        timers.onFire = { [weak self] timer in self?.feed { $0.timerFired(timer) } }
    }

    func start() {
        feed { $0.start() }
    }

    /// More of the original's body, for a copy that streams it.
    func streamBody(_ bytes: [UInt8]) {
        feed { $0.requestBody(bytes) }
    }

    func endBody(complete: Bool) {
        feed { $0.requestEnd(complete: complete) }
    }

    /// Queues an input and feeds the queue, so the session never sees an input in the middle of
    /// its own output (a pooled connection is handed over while a connect is being carried out).
    private func feed(_ input: @escaping (inout DuplicateFlowSession) -> [ProxyAction]) {
        queue.append { [unowned self] in input(&self.session) }
        guard !draining else { return }
        draining = true
        while !queue.isEmpty {
            let next = queue.removeFirst()
            for action in next() { perform(action) }
        }
        draining = false
        if session.isFinished { finish() }
    }

    private func perform(_ action: ProxyAction) {
        switch action {
        case .writeToUpstream(let flow, let bytes): upstreams.write(flow, bytes)
        case .connectUpstream(let flow, let endpoint, let fresh, let http1Only):
            upstreams.connect(flow, to: endpoint, fresh: fresh, http1Only: http1Only)
        case .releaseUpstream(let flow): upstreams.release(flow)
        case .closeUpstream(let flow): upstreams.close(flow)
        case .setTimer(.flow(_, let timer), let delay):
            timers.arm(timer, after: delay)
        case .cancelTimer(.flow(_, let timer)):
            timers.cancel(timer)
        case .trace(let entry):
            context.record(entry)
        case .stepLineage(let flow, let connection, let step):
            context.rules.perform(step, flow: flow, connection: connection, trace: context.trace)
        default:
            break  // a copy has no client, no holds and no rules
        }
    }

    private func finish() {
        guard !finished else { return }
        finished = true
        timers.cancelAll()
        upstreams.closeAll()
        upstreams.owner = nil
        context.duplicateFinished(self)
    }

    func upstreamConnected(_ flow: FlowID, _ info: UpstreamConnectionInfo) { feed { $0.upstreamDidConnect(info) } }
    func upstreamFailed(_ flow: FlowID, _ failure: UpstreamFailure) { feed { $0.upstreamDidFailToConnect(failure) } }
    func upstreamRead(_ flow: FlowID, _ bytes: UnsafeRawBufferPointer) {
        let copy = Array(bytes)
        feed { session in copy.withUnsafeBytes { session.upstreamDidRead($0) } }
    }
    func upstreamInputEnded(_ flow: FlowID) { feed { $0.upstreamDidReadEOF() } }
    func upstreamClosed(_ flow: FlowID) { feed { $0.upstreamDidClose() } }
    func upstreamDrained(_ flow: FlowID) {}
}
