import FaultlineCore
import FaultlineFlow
import FaultlineProxy
import FaultlineTrace

/// `HTTP1ProxySession`, the proxy's per-connection state machine: one keep-alive request per
/// iteration on the same session (client bytes in, upstream connected, upstream bytes in), every
/// action read. Driver-side steps are cheap stand-ins: writes are counted, timers and pool
/// releases ignored, and trace entries dropped (`keepsTrace` keeps them, for the trace row).
/// Without rules the session asks no `decide` questions; one would stop the benchmark. After every
/// input it is asked whether reads should pause, as the driver asks.
struct SessionPiece: Piece {
    static let name = "HTTP1ProxySession"
    private var session: HTTP1ProxySession
    private var flow: FlowID?
    private var released = 0
    private var clientBytes = 0
    private var pauses = 0
    /// Set to collect the trace entries of the next iterations into `kept`.
    var keepsTrace = false
    private(set) var kept: [TraceEntry] = []

    init(trace: TraceRecorder) {
        session = HTTP1ProxySession(
            connectionID: ConnectionID(1), configuration: ProxyConfiguration(mode: .forward),
            tracing: FlowTracing(of: trace), flowIDs: IDGenerator())
        consume(session.start())
    }

    mutating func iterate() {
        clientSends()
        upstreamConnects()
        upstreamAnswers()
    }

    /// The client's request arrives: the session decodes it, starts its flow and asks for an upstream.
    mutating func clientSends() {
        let actions = Fixtures.requestBytes.withUnsafeBytes { session.clientDidRead($0) }
        consume(actions)
    }

    /// The pool hands over a kept-alive connection: the request goes upstream.
    mutating func upstreamConnects() {
        guard let flow else { fatalError("the session asked for no upstream") }
        consume(session.upstreamDidConnect(flow: flow, Fixtures.upstream))
    }

    /// The origin's whole response arrives: it goes to the client and the upstream back to the pool.
    mutating func upstreamAnswers() {
        guard let flow else { fatalError("the session asked for no upstream") }
        let actions = Fixtures.responseBytes.withUnsafeBytes { session.upstreamDidRead(flow: flow, $0) }
        consume(actions)
    }

    private mutating func consume(_ actions: [ProxyAction]) {
        for action in actions {
            switch action {
            case .connectUpstream(let id, _, _, _): flow = id
            case .writeToClient(let bytes): clientBytes += bytes.count
            case .releaseUpstream: released += 1
            case .trace(let entry): if keepsTrace { kept.append(entry) }
            case .decide: fatalError("a session without rules asked the rules")
            case .closeClient, .resetClient, .closeUpstream: fatalError("the session closed a connection: \(action)")
            default: break
            }
        }
        if session.wantsClientReadsPaused { pauses += 1 }
        if let flow, session.wantsUpstreamReadsPaused(flow: flow) { pauses += 1 }
    }

    func failure(afterIterations count: Int) -> String? {
        guard released == count, clientBytes >= count * Fixtures.responseBytes.count / 2, !session.isClosed, pauses == 0
        else {
            return "\(released) upstreams released, \(clientBytes) bytes to the client, \(pauses) pauses asked for "
                + "in \(count) iterations"
        }
        return nil
    }
}
