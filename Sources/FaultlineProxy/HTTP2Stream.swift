import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineHTTP2
import FaultlineTrace

/// One request stream of an HTTP/2 client connection: its flow, the flow's HTTP/1.1 upstream,
/// and the encoding of the flow's client actions as frames of the stream (RFC 9113 §8.1).
///
/// It shares the upstream, timer and trace handling of every HTTP/1 upstream (`UpstreamFlowHost`);
/// what it adds is the client side: a response head becomes HEADERS (`:status`, connection-specific
/// fields removed, §8.2.2), body bytes DATA, the end END_STREAM or trailers, and a broken client
/// RST_STREAM — only this stream, never the connection.
///
/// A class: the session keeps many streams in a table (`HTTP2StreamTable`) and reaches into them
/// after every input; as a struct each look-up copied the whole flow machine (a third of the CPU
/// under h2load's 50 streams per connection, when the table was a dictionary). `~Copyable` is no
/// way out here: the standard library's collections (Swift 6.3) hold only copyable values.
final class HTTP2Stream: UpstreamFlowHost {
    let streamID: Int32
    let connection: HTTP2Connection
    let configuration: ProxyConfiguration
    let connectionID: ConnectionID
    /// The flow this stream carries (kept after the flow ends, to drop the session's index entry).
    let assignedFlow: FlowID
    // Loop-confined state the request path changes in place: release builds skip Swift's dynamic
    // exclusivity check on it, debug builds (every test) keep it (ARCHITECTURE.md, "Exclusivity").
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var flow: FlowMachine?
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var upstream: UpstreamCodec?
    /// The client's request is complete (END_STREAM or trailers received).
    var requestEnded = false
    /// Request DATA bytes the client sent that are not yet credited back to it (`consumed`).
    var uncredited = 0
    /// Request bytes the driver has not got into the upstream socket yet, as it last said
    /// (`upstreamBacklogChanged`): over the bound, the stream gets no credit.
    var upstreamBacklog = 0
    /// The flow ended; the session drops the stream after the current input.
    var ended = false
    /// The body timer (`SessionTimer.streamBody`) runs for this stream
    /// (HTTP2ProxySession+BodyTimeout.swift).
    var bodyTimerArmed = false
    /// DATA arrived since the body timer was last started: the session starts it again.
    var bodyArrived = false
    /// The body timer last ran out while the client was out of window: the next run-out starts
    /// it again as well (the window may have opened just before).
    var bodyWaitedForWindow = false
    /// A `goaway` fault asked for a GOAWAY, which the session sends after the current input.
    var requestedGoAway: (code: HTTP2ErrorCode, thisStreamProcessed: Bool)?
    /// What the stream carries, and what that role holds.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var role: Role = .exchange
    /// A response `throttle`: this stream's body waits here and leaves at the rule's rate
    /// (HTTP2StreamPacing.swift); it may outlive the flow until what waits has gone.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var pacing: HTTP2StreamPacing?

    /// The roles of a stream. DATA is the request body of an exchange; in every other role it is
    /// the tunnel's, kept in `early` until the tunnel is open.
    enum Role {
        /// A request and its response through the flow core (`flow`, `upstream`).
        case exchange
        /// An extended `CONNECT` for WebSocket (RFC 8441), sent upstream as an HTTP/1.1 upgrade
        /// through the flow core; `accepted` once the origin's 101 went to the client as 200.
        case upgrading(early: [UInt8], accepted: Bool)
        /// A `CONNECT` waiting for its connection to the target (RFC 9113 §8.5).
        case connecting(UpstreamEndpoint, early: [UInt8])
        /// The relay (HTTP2Stream+Tunnel.swift).
        case tunnel(Tunnel)
        /// The tunnel closed: DATA still coming is dropped.
        case tunnelClosed
    }

    init(
        streamID: Int32, connection: HTTP2Connection, configuration: ProxyConfiguration,
        connectionID: ConnectionID, assignedFlow: FlowID
    ) {
        self.streamID = streamID
        self.connection = connection
        self.configuration = configuration
        self.connectionID = connectionID
        self.assignedFlow = assignedFlow
    }

    var traceConnection: ConnectionID? { connectionID }
    var flowID: FlowID? { flow?.id }
    var flowEndpoint: UpstreamEndpoint? { flow?.request.endpoint }
    var flowIsUpgrade: Bool { flow?.request.kind == .upgrade }
    var hasUpstream: Bool { upstream != nil }
    var upstreamStatus: HTTP1UpstreamCodec.Status? { upstream?.status }

    func perform(_ actions: [FlowAction], _ output: inout SessionOutput) {
        for action in actions {
            switch action {
            case .openUpstream, .sendRequestHead, .sendRequestBody, .sendRequestEnd, .releaseUpstream, .closeUpstream,
                .armTimer, .cancelTimer, .decide, .stepLineage, .trace:
                var host = self  // the protocol's helper is `mutating`; a class changes in place
                host.performCommon(action, &output)
            case .throttle(_, .client, let rate):
                // Not the driver's connection pacer: the connection carries other streams.
                throttle(rate)
            case .hold, .unregisterHold, .observed, .ruleFired, .duplicate, .duplicateBody, .duplicateEnd, .throttle:
                performForDriver(action, &output)
            case .sendInterim(_, let head):
                let fields = HopByHopHeaders.removing(from: head.headers)
                connection.sendResponseHead(
                    stream: streamID, headers: HTTP2Headers.responseBlock(status: head.status, fields: fields),
                    endStream: false)
            case .sendResponseHead(_, let head, _, _) where isUpgrading && head.status == 101:
                // The origin took the upgrade: an extended CONNECT succeeds with a 2xx (RFC 8441
                // §5); the HTTP/1.1 upgrade's own fields stay behind.
                var fields = ClientResponseFields.make(from: head.headers, length: .none)
                for name in ["upgrade", "sec-websocket-accept"] { fields.remove(name: name) }
                connection.sendResponseHead(
                    stream: streamID, headers: HTTP2Headers.responseBlock(status: 200, fields: fields), endStream: false
                )
                if case .upgrading(let early, _) = role { role = .upgrading(early: early, accepted: true) }
            case .sendResponseEnd where isAcceptedUpgrade:
                continue  // the stream stays open as the tunnel
            case .sendResponseHead(_, let head, let length, _):
                // A stated length holds for HTTP/2 too (RFC 9113 §8.1.1); HTTP/1's framing goes.
                // Via names the protocol the response came in on (RFC 9110 §7.6.3).
                var fields = ClientResponseFields.make(from: head.headers, length: length)
                if let via = configuration.via {
                    fields.add(name: "Via", value: via.value(receivedProtocol: head.version.viaProtocol))
                }
                connection.sendResponseHead(
                    stream: streamID, headers: HTTP2Headers.responseBlock(status: head.status, fields: fields),
                    endStream: length == .none || length == .known(0))
            case .sendResponseBody(_, let bytes):
                deliver(.data(bytes), &output)
            case .sendResponseEnd(_, let trailers):
                deliver(.end(trailers: trailers), &output)
            case .breakClient(_, let how, let code):
                // A GOAWAY that leaves this stream unprocessed closes it (nghttp2 does, once the
                // frame is out; the client learns it from last-stream-id, RFC 9113 §6.8).
                guard requestedGoAway == nil else { continue }
                // What the flow handed over before the break reaches the client first (a
                // "close after N body bytes" shows N bytes), then the stream is reset.
                deliver(.reset(code ?? Self.resetCode(for: how)), &output)
            case .goAwayClient(_, let code, let thisStreamProcessed):
                requestedGoAway = (code, thisStreamProcessed)
            case .ended(_, .tunnelled):
                let target = flow?.request.endpoint
                flow = nil
                upgradeTunnelReady(target: target, &output)
            case .ended:
                // A request body still coming is read and credited by the session until it ends
                // (a RST_STREAM NO_ERROR here, RFC 9113 §8.1, could overtake the response's last
                // DATA, which nghttp2 may still hold for flow control).
                ended = true
                flow = nil
            }
        }
    }

    // MARK: The client side, paced or not

    /// Hands `item` to the connection, or to the pacing queue while one is paced or waits there
    /// (an end or a reset never overtakes the body before it).
    private func deliver(_ item: HTTP2StreamPacing.Item, _ output: inout SessionOutput) {
        guard pacing != nil else {
            send(item)
            return
        }
        pacing!.enqueue(item)
        // The first slice goes at once, the rest tick by tick (as the driver's `Pacer`).
        if !pacing!.tickArmed { releaseSlice(&output) }
    }

    /// The connection takes `item` now.
    private func send(_ item: HTTP2StreamPacing.Item) {
        switch item {
        case .data(let bytes):
            connection.sendData(stream: streamID, bytes, endStream: false)
        case .end(let trailers?) where !trailers.isEmpty:
            connection.sendTrailers(stream: streamID, headers: HTTP2Headers.fields(fromHTTP1: trailers))
        case .end:
            connection.sendData(stream: streamID, [], endStream: true)
        case .reset(let code):
            connection.reset(stream: streamID, code: code, afterQueuedData: true)
        }
    }

    /// Starts, changes or ends this stream's pacing (`throttle` on the client side; nil ends it
    /// once what waits has gone).
    private func throttle(_ rate: Int?) {
        if let rate {
            if pacing == nil { pacing = HTTP2StreamPacing(bytesPerSecond: rate) } else { pacing!.setRate(rate) }
        } else if pacing != nil {
            pacing!.finishing = true
            if pacing!.isEmpty { pacing = nil }
        }
    }

    /// One tick of the pacing (`SessionTimer.streamPacing`, or the first slice of a burst): the
    /// next slice goes to the connection; the next tick is armed while anything waits.
    func releaseSlice(_ output: inout SessionOutput) {
        guard var pacing else { return }
        pacing.tickArmed = false
        for item in pacing.nextSlice() { send(item) }
        if !pacing.isEmpty {
            pacing.tickArmed = true
            output.append(.setTimer(.streamPacing(streamID), HTTP2StreamPacing.tick))
        }
        self.pacing = pacing.isEmpty && pacing.finishing ? nil : pacing
    }

    /// Body bytes this stream holds for the client: in its pacing queue and in the connection's
    /// queue for the stream (the driver stops reading the flow's upstream past a bound).
    var pendingClientBytes: Int {
        (pacing?.queuedBytes ?? 0) + connection.bufferedOutboundBytes(stream: streamID)
    }

    /// A broken client, in HTTP/2 terms: the stream is reset, the connection lives on. A body the
    /// framing cannot parse has no HTTP/2 form (DATA has no chunk lines): PROTOCOL_ERROR.
    static func resetCode(for how: ClientBreak) -> HTTP2ErrorCode {
        switch how {
        case .reset, .close, .closeAfterFlush: return .internalError
        case .malformedBody: return .protocolError
        }
    }
}
