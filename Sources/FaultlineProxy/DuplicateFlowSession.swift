public import FaultlineCore
public import FaultlineFlow
import FaultlineHTTP1
import FaultlineTrace

/// A copy of a request made by a `duplicate` rule, as a flow of its own with no client: the same
/// flow core and HTTP/1.1 upstream path as any flow, with the same timeouts; its response is read
/// and dropped (`response.discarded`). No I/O: the driver carries out its `ProxyAction`s.
public struct DuplicateFlowSession {
    var flow: FlowMachine?
    var upstream: UpstreamCodec?
    let configuration: ProxyConfiguration
    let tracing: FlowTracing
    public let id: FlowID

    /// A session for one copy of `request`; `start()` gives its first actions.
    public init(
        id: FlowID, copying request: DuplicateRequest, configuration: ProxyConfiguration, tracing: FlowTracing
    ) {
        self.id = id
        self.configuration = configuration
        self.tracing = tracing
        self.pendingStart = request
    }

    private var pendingStart: DuplicateRequest?

    public mutating func start() -> [ProxyAction] {
        guard let request = pendingStart else { return [] }
        pendingStart = nil
        let environment = FlowEnvironment(
            rules: nil, responseTimeout: configuration.responseTimeout, tracing: tracing)
        flow = FlowMachine(id: id, copying: request, environment: environment)
        var output = SessionOutput()
        perform(flow!.start(), &output)
        return output.finish()
    }

    /// True once the copy's flow has ended.
    public var isFinished: Bool { flow == nil && pendingStart == nil }

    public mutating func upstreamDidConnect(_ info: UpstreamConnectionInfo) -> [ProxyAction] {
        var output = SessionOutput()
        flowUpstreamConnected(id, info, &output)
        return output.finish()
    }

    public mutating func upstreamDidFailToConnect(_ failure: UpstreamFailure) -> [ProxyAction] {
        var output = SessionOutput()
        flowUpstreamFailed(id, failure, &output)
        return output.finish()
    }

    public mutating func upstreamDidRead(_ bytes: UnsafeRawBufferPointer) -> [ProxyAction] {
        var output = SessionOutput()
        flowUpstreamRead(id, bytes, &output)
        return output.finish()
    }

    public mutating func upstreamDidReadEOF() -> [ProxyAction] {
        var output = SessionOutput()
        flowUpstreamEOF(id, &output)
        return output.finish()
    }

    public mutating func upstreamDidClose() -> [ProxyAction] {
        var output = SessionOutput()
        flowUpstreamClosed(id, &output)
        return output.finish()
    }

    /// More of the original's body (a streamed copy).
    public mutating func requestBody(_ bytes: [UInt8]) -> [ProxyAction] {
        var output = SessionOutput()
        flowInput(&output) { $0.requestBody(bytes[...]) }
        return output.finish()
    }

    /// The original's body is complete; with `complete: false` it never will be, and the copy ends.
    public mutating func requestEnd(complete: Bool) -> [ProxyAction] {
        var output = SessionOutput()
        if complete {
            flowInput(&output) { $0.requestEnd(trailers: nil) }
        } else {
            flowInput(&output) { $0.clientGone(reason: "the original request stopped before its body was complete") }
        }
        return output.finish()
    }

    public mutating func timerFired(_ timer: FlowTimer) -> [ProxyAction] {
        var output = SessionOutput()
        flowInput(&output) { $0.timerFired(timer) }
        return output.finish()
    }
}

extension DuplicateFlowSession: UpstreamFlowHost {
    var traceConnection: ConnectionID? { nil }
    var flowID: FlowID? { flow?.id }
    var flowEndpoint: UpstreamEndpoint? { flow?.request.endpoint }
    var flowIsUpgrade: Bool { flow?.request.kind == .upgrade }
    var hasUpstream: Bool { upstream != nil }
    var upstreamStatus: HTTP1UpstreamCodec.Status? { upstream?.status }

    mutating func perform(_ actions: [FlowAction], _ output: inout SessionOutput) {
        for action in actions {
            switch action {
            case .openUpstream, .sendRequestHead, .sendRequestBody, .sendRequestEnd, .releaseUpstream, .closeUpstream,
                .armTimer, .cancelTimer, .decide, .stepLineage, .trace:
                performCommon(action, &output)
            case .ended:
                flow = nil
                upstream = nil
            case .sendInterim, .sendResponseHead, .sendResponseBody, .sendResponseEnd, .breakClient, .goAwayClient,
                .hold,
                .unregisterHold, .observed, .ruleFired, .duplicate, .duplicateBody, .duplicateEnd, .throttle:
                // No client and no rules: the core sends a copy's response nowhere.
                break
            }
        }
    }
}
