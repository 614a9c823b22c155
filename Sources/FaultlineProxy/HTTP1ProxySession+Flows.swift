public import FaultlineCore
public import FaultlineFlow
import FaultlineHTTP1
public import FaultlineRules
import FaultlineTrace

/// Carrying out what the flow core asks for: upstream actions go through the flow's
/// `HTTP1UpstreamCodec`, client actions are encoded for HTTP/1 (HTTP1ProxySession+Response.swift),
/// and the rest (trace entries and lineage steps among them) goes to the driver.
extension HTTP1ProxySession: UpstreamFlowHost {
    mutating func perform(_ actions: [FlowAction], _ output: inout SessionOutput) {
        for action in actions { perform(action, &output) }
    }

    private mutating func perform(_ action: FlowAction, _ output: inout SessionOutput) {
        switch action {
        case .openUpstream, .sendRequestHead, .sendRequestBody, .sendRequestEnd, .releaseUpstream, .closeUpstream,
            .armTimer, .cancelTimer, .decide, .stepLineage, .trace:
            performCommon(action, &output)
        case .sendInterim(_, let head):
            sendInterim(head, &output)
        case .sendResponseHead(_, let head, let length, let source):
            sendResponseHead(head, length: length, source: source, &output)
        case .sendResponseBody(_, let bytes):
            sendResponseBody(bytes, &output)
        case .sendResponseEnd(_, let trailers):
            sendResponseEnd(trailers: trailers, &output)
        case .breakClient(_, let how, _):  // HTTP/1.1 has no error codes
            breakClient(how, &output)
        case .goAwayClient:
            // HTTP/1.1's graceful end: `Connection: close` on this response, then close (RFC 9112
            // §9.6); a flow that is not processed is broken right after, closing at once.
            updateExchange { $0.closeAfter = true }
        case .hold, .unregisterHold, .observed, .ruleFired, .duplicate, .duplicateBody, .duplicateEnd, .throttle:
            performForDriver(action, &output)
        case .ended(_, let outcome):
            flowEnded(outcome, &output)
        }
    }

    // MARK: Upstream input

    /// The connection asked for with `connectUpstream` is ready.
    public mutating func upstreamDidConnect(flow id: FlowID, _ info: UpstreamConnectionInfo) -> [ProxyAction] {
        var output = SessionOutput()
        if case .connecting(let connect) = state, connect.flow == id {
            openConnectTunnel(connect, info, &output)
        } else {
            flowUpstreamConnected(id, info, &output)
        }
        return finish(&output)
    }

    /// The connection asked for with `connectUpstream` could not be made.
    public mutating func upstreamDidFailToConnect(flow id: FlowID, _ failure: UpstreamFailure) -> [ProxyAction] {
        var output = SessionOutput()
        if case .connecting(let connect) = state, connect.flow == id {
            connectFailed(connect, failure, &output)
        } else {
            flowUpstreamFailed(id, failure, &output)
        }
        return finish(&output)
    }

    /// Bytes arrived from a flow's upstream connection.
    public mutating func upstreamDidRead(flow id: FlowID, _ bytes: UnsafeRawBufferPointer) -> [ProxyAction] {
        var output = SessionOutput()
        if case .tunnelling = state { relayFromUpstream(bytes, &output) } else { flowUpstreamRead(id, bytes, &output) }
        return finish(&output)
    }

    /// A flow's upstream shut down its sending side.
    public mutating func upstreamDidReadEOF(flow id: FlowID) -> [ProxyAction] {
        var output = SessionOutput()
        if case .tunnelling = state { tunnelUpstreamEOF(&output) } else { flowUpstreamEOF(id, &output) }
        return finish(&output)
    }

    /// The rules answered the flow's question.
    public mutating func ruleDecided(flow id: FlowID, _ answer: RuleAnswer) -> [ProxyAction] {
        var output = SessionOutput()
        if flowID == id { flowInput(&output) { $0.decided(answer) } }
        return finish(&output)
    }

    /// A flow's upstream connection is gone (reset, or closed after an error).
    public mutating func upstreamDidClose(flow id: FlowID) -> [ProxyAction] {
        var output = SessionOutput()
        if case .tunnelling = state {
            finishTunnel(&output, reason: "upstream-closed")
        } else {
            flowUpstreamClosed(id, &output)
        }
        return finish(&output)
    }
}
