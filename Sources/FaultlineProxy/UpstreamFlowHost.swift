import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace

/// What a holder of a flow and its upstream (`UpstreamCodec`: HTTP/1.1, or a stream of an
/// HTTP/2 connection the origin negotiated) shares, whether the flow has a client
/// (`HTTP1ProxySession`) or not (`DuplicateFlowSession`): feeding the flow, carrying out its
/// upstream and timer actions, passing on its trace and lineage actions, and turning what the upstream says into flow events.
protocol UpstreamFlowHost {
    var flow: FlowMachine? { get set }
    var upstream: UpstreamCodec? { get set }
    var configuration: ProxyConfiguration { get }
    /// The client connection the flow's trace events name, if it has one.
    var traceConnection: ConnectionID? { get }
    // Read in place by the conforming type: the code below reading `flow` or `upstream` through
    // the protocol's getter would copy the whole machine or codec (seen in the benchmark profile).
    var flowID: FlowID? { get }
    var flowEndpoint: UpstreamEndpoint? { get }
    var hasUpstream: Bool { get }
    /// The flow's request asks to switch protocols (its upstream must speak HTTP/1.1).
    var flowIsUpgrade: Bool { get }
    /// Computed when asked (it reads the response's `Connection` field): at the flow's end only.
    var upstreamStatus: HTTP1UpstreamCodec.Status? { get }
    mutating func perform(_ actions: [FlowAction], _ output: inout SessionOutput)
}

extension UpstreamFlowHost {
    /// Feeds the current flow one input and carries out what it asks for.
    mutating func flowInput(_ output: inout SessionOutput, _ input: (inout FlowMachine) -> [FlowAction]) {
        guard flowID != nil else { return }
        let actions = input(&flow!)
        perform(actions, &output)
        // The flow's next input fills the same array (the flow may have ended, or be the next one).
        flow?.recycle(consume actions)
    }

    /// The actions every host carries out the same way: the upstream through its codec, timers,
    /// and lineage steps and trace events passed on to the driver.
    mutating func performCommon(_ action: FlowAction, _ output: inout SessionOutput) {
        switch action {
        case .openUpstream(let id, let endpoint):
            upstream = UpstreamCodec(limits: configuration.limits, via: configuration.via)
            output.append(.connectUpstream(id, endpoint, fresh: false, http1Only: flowIsUpgrade))
        case .sendRequestHead(let id, let head):
            if let bytes = upstream?.sendHead(head) { output.writeToUpstream(id, bytes) }
        case .sendRequestBody(let id, let bytes):
            if let encoded = upstream?.sendBody(bytes) { output.writeToUpstream(id, encoded) }
        case .sendRequestEnd(let id, let trailers):
            if let encoded = upstream?.sendEnd(trailers: trailers) { output.writeToUpstream(id, encoded) }
        case .releaseUpstream(let id):
            output.append(upstreamStatus?.isReusable == true ? .releaseUpstream(id) : .closeUpstream(id))
            upstream = nil
        case .closeUpstream(let id):
            output.append(.closeUpstream(id))
            upstream = nil
        case .armTimer(let id, let timer, let delay):
            output.append(.setTimer(.flow(id, timer), delay))
        case .cancelTimer(let id, let timer):
            output.append(.cancelTimer(.flow(id, timer)))
        case .decide(let id, let question):
            output.append(.decide(id, question))
        case .stepLineage(let id, let step):
            output.append(.stepLineage(id, connection: traceConnection, step))
        case .trace(let id, let kind, let fields):
            output.trace(TraceEntry(kind, connection: traceConnection, flow: id, fields))
        default:
            preconditionFailure("\(action) is not an upstream, timer, lineage or trace action")
        }
    }

    /// The actions only the driver can carry out (the rules runtime, duplicates, pacing), passed
    /// on as `ProxyAction`s for whichever framing the flow came over.
    func performForDriver(_ action: FlowAction, _ output: inout SessionOutput) {
        switch action {
        case .hold(let request): output.append(.hold(request))
        case .unregisterHold(let id): output.append(.unregisterHold(id))
        case .observed(_, let event): output.append(.observed(event))
        case .ruleFired(_, let rule): output.append(.ruleFired(rule))
        case .duplicate(let request): output.append(.duplicate(request))
        case .duplicateBody(let id, let bytes): output.append(.duplicateBody(id, Array(bytes)))
        case .duplicateEnd(let id, let complete): output.append(.duplicateEnd(id, complete: complete))
        case .throttle(let id, let side, let rate): output.append(.throttle(id, side, bytesPerSecond: rate))
        default: preconditionFailure("\(action) is carried out by the framing, not the driver")
        }
    }

    /// The flow's upstream connection is ready.
    mutating func flowUpstreamConnected(_ id: FlowID, _ info: UpstreamConnectionInfo, _ output: inout SessionOutput) {
        guard flowID == id, hasUpstream else {
            // The flow ended while connecting (the client went away): the connection is not needed.
            output.append(.closeUpstream(id))
            return
        }
        output.writeToUpstream(id, upstream!.didConnect(info))
        flowInput(&output) { $0.upstreamConnected(info) }
        // The framing may have failed the exchange as it started (no HTTP/2 stream to be had).
        processUpstreamInput(&output)
    }

    mutating func flowUpstreamFailed(_ id: FlowID, _ failure: UpstreamFailure, _ output: inout SessionOutput) {
        guard flowID == id else { return }
        upstream = nil
        flowInput(&output) { $0.upstreamFailed(failure) }
    }

    mutating func flowUpstreamRead(_ id: FlowID, _ bytes: UnsafeRawBufferPointer, _ output: inout SessionOutput) {
        guard flowID == id, hasUpstream else { return }
        upstream!.receive(bytes)
        processUpstreamInput(&output)
        // HTTP/2 answers what it read (SETTINGS ACK, WINDOW_UPDATE) and sends request DATA a
        // window update let out.
        if hasUpstream { output.writeToUpstream(id, upstream!.takeOutput()) }
    }

    mutating func flowUpstreamEOF(_ id: FlowID, _ output: inout SessionOutput) {
        guard flowID == id, hasUpstream else { return }
        upstream!.receiveEOF()
        processUpstreamInput(&output)
        upstreamEndedEarly(&output)
    }

    mutating func flowUpstreamClosed(_ id: FlowID, _ output: inout SessionOutput) {
        guard flowID == id, hasUpstream else { return }
        upstreamEndedEarly(&output)
    }

    /// Decodes buffered upstream bytes into flow events.
    mutating func processUpstreamInput(_ output: inout SessionOutput) {
        while flowID != nil, hasUpstream, let event = upstream!.nextEvent() {
            switch event {
            case .interim(let head): flowInput(&output) { $0.upstreamInterim(head) }
            case .head(let head, let length): flowInput(&output) { $0.upstreamHead(head, length: length) }
            case .body(let bytes): flowInput(&output) { $0.upstreamBody(bytes) }
            case .end(let trailers): flowInput(&output) { $0.upstreamEnd(trailers: trailers) }
            case .broke(let code, let message):
                flowInput(&output) { $0.upstreamBroke(code: code, message: message) }
            }
        }
    }

    /// The upstream stopped (EOF or closed) while the flow still needed it.
    mutating func upstreamEndedEarly(_ output: inout SessionOutput) {
        guard let id = flowID, let endpoint = flowEndpoint, let codec = upstreamStatus, !codec.responseComplete else {
            return
        }
        if codec.responseStarted {
            // Part of the response may already be with the client: the only honest signal left is
            // to cut the client connection so it sees a truncated message.
            flowInput(&output) {
                $0.upstreamBroke(
                    code: "truncated-response",
                    message: "\(endpoint) closed the connection in the middle of the response")
            }
            return
        }
        if codec.mayRetryOnFreshConnection {
            // A pooled connection the upstream had already closed (RFC 9112 §9.3.1 allows retrying
            // a request that has no body on a new connection). The retry asks for a fresh
            // connection, which is never `reused`, so this happens at most once per request.
            upstream!.restartForRetry()
            output.append(.cancelTimer(.flow(id, .responseHead)))
            output.append(.closeUpstream(id))
            output.append(.connectUpstream(id, endpoint, fresh: true, http1Only: flowIsUpgrade))
            return
        }
        upstream = nil
        flowInput(&output) { $0.upstreamFailed(.closedBeforeResponse(endpoint.description)) }
    }
}
