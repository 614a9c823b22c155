import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineHTTP2
import FaultlineTrace

/// The client's frames, stream by stream: a request head starts a flow, DATA and trailers feed
/// it, a reset or a closed stream ends it; the connection's own events go to the trace.
extension HTTP2ProxySession {
    mutating func handle(_ events: [HTTP2Event], _ output: inout SessionOutput) {
        // nghttp2 reports a GOAWAY of its own once the frame is written, after the whole read;
        // its rapid-reset limit goes on accepting streams until then. Those above the GOAWAY's
        // last stream were not processed (RFC 9113 §6.8): they start no flow.
        let endsConnection = events.contains { if case .connectionError = $0 { true } else { false } }
        let lastProcessed = endsConnection ? connection.connectionErrorLastStreamID : nil
        for event in events {
            switch event {
            case .headers(let stream, _, _) where lastProcessed.map({ stream > $0 }) ?? false:
                continue
            case .headers(let stream, let headers, let endStream):
                startFlow(stream: stream, headers: headers, endStream: endStream, &output)
            case .data(let stream, let bytes, let endStream):
                guard streams[stream] != nil else {
                    connection.consumed(stream: stream, bytes: bytes.count)
                    continue
                }
                streams[stream]!.uncredited += bytes.count
                streams[stream]!.bodyArrived = true
                if streams[stream]!.carriesTunnelData {
                    if endStream { streams[stream]!.requestEnded = true }
                    streams[stream]!.relayFromClient(bytes[...], endStream: endStream, &output)
                    continue
                }
                streams[stream]!.flowInput(&output) { $0.requestBody(bytes[...]) }
                if endStream { endRequest(stream: stream, trailers: nil, &output) }
            case .trailers(let stream, _) where streams[stream]?.isTunnel == true:
                streams[stream]!.requestEnded = true
                streams[stream]!.relayFromClient([][...], endStream: true, &output)
            case .trailers(let stream, let headers):
                endRequest(stream: stream, trailers: HTTP2Headers.http1Fields(headers), &output)
            case .streamReset(let stream, _) where streams[stream]?.isTunnel == true:
                streams[stream]!.tunnelClientGone(&output)
            case .streamReset(let stream, let code):
                streams[stream]?.flowInput(&output) {
                    $0.clientGone(reason: "the client reset stream \(stream) (\(code))")
                }
            case .streamClosed(let stream, let code):
                if streams[stream]?.bodyTimerArmed == true { output.append(.cancelTimer(.streamBody(stream))) }
                if streams[stream]?.isTunnel == true { streams[stream]!.tunnelClientGone(&output) }
                if streams[stream]?.flow != nil {
                    streams[stream]!.flowInput(&output) { $0.clientGone(reason: "stream \(stream) closed (\(code))") }
                }
                forget(stream: stream)
            case .streamError(let stream, let reason):
                output.trace(
                    TraceEntry(
                        .protocolError, connection: connectionID, flow: streams[stream]?.flowID,
                        [
                            .string("side", "client"), .string("code", "http2-stream-error"), .int("stream", stream),
                            .string("message", reason),
                        ]))
                streams[stream]?.flowInput(&output) { $0.clientGone(reason: "stream \(stream) was refused: \(reason)") }
            case .windowAvailable:
                continue  // the driver asks `wantsUpstreamReadsPaused` again after every input
            case .settings(let settings):
                output.trace(
                    TraceEntry(
                        .http2Settings, connection: connectionID,
                        [
                            .string("side", "client"),
                            .object("settings", settings.map { .int($0.name, Int64($0.value)) }),
                        ]))
            case .goAway(let lastStreamID, let code, let debug):
                traceGoAway(sent: false, code: code, lastStreamID: lastStreamID, debug: debug, &output)
                if state == .open { state = .goingAway }
            case .connectionError(let code, let reason):
                output.trace(
                    TraceEntry(
                        .protocolError, connection: connectionID,
                        [.string("side", "client"), .string("code", "http2-\(code)"), .string("message", reason)]))
                // The GOAWAY that ends the connection is ours too (RFC 9113 §5.4.1); its debug
                // data is the reason already traced.
                traceGoAway(
                    sent: true, code: code, lastStreamID: connection.connectionErrorLastStreamID, debug: "", &output)
                endEveryFlow(reason: "HTTP/2 connection error: \(reason)", &output)
                if closeReason == nil { closeReason = "http2-\(code)" }
                if state == .open { state = .goingAway }
            }
        }
    }

    /// A request head (RFC 9113 §8.3.1): routed as the HTTP/1 framing routes a request line, then
    /// a flow of its own; refused (answered on the stream) when it cannot go anywhere.
    private mutating func startFlow(
        stream: Int32, headers: [HTTP2Header], endStream: Bool, _ output: inout SessionOutput
    ) {
        guard streams[stream] == nil else { return }
        guard state == .open else {
            connection.reset(stream: stream, code: .refusedStream)
            return
        }
        lastStreamStarted = max(lastStreamStarted, stream)
        let flowID = FlowID(flowIDs.next())
        let host = HTTP2Stream(
            streamID: stream, connection: connection, configuration: configuration, connectionID: connectionID,
            assignedFlow: flowID)
        host.requestEnded = endStream
        streams[stream] = host
        streamOfFlow[flowID] = stream
        let request: HTTP2Headers.Request
        do {
            request = try HTTP2Headers.request(headers)
        } catch {
            refuse(
                stream: stream, flow: flowID, head: nil, route: nil,
                RequestRoute.Refusal(status: 400, code: error.code, message: error.message), &output)
            return
        }
        let head: HTTPRequestHead
        if let `protocol` = request.protocol {
            // Extended CONNECT (RFC 8441 §4): WebSocket only, sent upstream as the HTTP/1.1
            // upgrade it stands for (§5: the key is ours; the version and subprotocols are the
            // client's).
            guard `protocol` == "websocket" else {
                let refusal = RequestRoute.Refusal(
                    status: 501, code: "extended-connect-unsupported",
                    message: "extended CONNECT for \"\(`protocol`)\" is not supported; only websocket (RFC 8441)")
                refuse(stream: stream, flow: flowID, head: nil, route: nil, refusal, &output)
                return
            }
            var asGet = request
            asGet.method = "GET"
            var fields = HTTP2Headers.http1Fields(of: request)
            fields.add(name: "Connection", value: "Upgrade")
            fields.add(name: "Upgrade", value: "websocket")
            fields.add(name: "Sec-WebSocket-Key", value: Self.webSocketKey())
            head = HTTPRequestHead(
                method: "GET", target: Self.target(of: asGet, mode: configuration.mode), version: .http1_1,
                headers: fields)
            streams[stream]!.role = .upgrading(early: [], accepted: false)
        } else {
            head = HTTPRequestHead(
                method: request.method, target: Self.target(of: request, mode: configuration.mode), version: .http1_1,
                headers: HTTP2Headers.http1Fields(of: request))
        }
        let route: RequestRoute
        do {
            route = try RequestRoute.decide(head, mode: configuration.mode, previous: previousEndpoint)
        } catch {
            refuse(stream: stream, flow: flowID, head: head, route: nil, error, &output)
            return
        }
        previousEndpoint = route.endpoint
        if route.kind == .connect {
            startConnect(stream: stream, flow: flowID, route: route, head: head, &output)
            return
        }
        if let pseudonym = configuration.viaPseudonym,
            head.headers.values(name: "via").contains(where: { $0.contains(pseudonym) })
        {
            let refusal = RequestRoute.Refusal(
                status: 508, code: "proxy-loop",
                message: "the request already passed through this proxy (Via: \(pseudonym)); it would loop")
            refuse(stream: stream, flow: flowID, head: head, route: route, refusal, &output)
            return
        }
        let length: FlowBodyLength
        if endStream || streams[stream]!.isUpgrading {
            length = .none
        } else if let text = head.headers.first(name: "content-length"), let bytes = Int64(text), bytes >= 0 {
            length = bytes == 0 ? .none : .known(bytes)
        } else {
            length = .unknown
        }
        let flowRequest = FlowRequest(
            kind: route.kind, method: head.method, endpoint: route.endpoint, path: route.path, query: route.query,
            outboundTarget: route.outboundTarget, url: route.url, version: "HTTP/2", headers: head.headers,
            authority: configuration.keepsClientHost
                ? (request.authority ?? route.endpoint.hostHeaderValue) : route.endpoint.hostHeaderValue,
            body: length, stream: stream)
        streams[stream]!.flow = FlowMachine(id: flowID, request: flowRequest, environment: environment)
        streams[stream]!.perform(streams[stream]!.flow!.start(), &output)
        // An extended CONNECT's HTTP/1.1 form has no body: its DATA is the tunnel's.
        if endStream || streams[stream]?.isUpgrading == true {
            streams[stream]?.flowInput(&output) { $0.requestEnd(trailers: nil) }
        }
    }

    /// A `CONNECT` (RFC 9113 §8.5): no flow (there is no request to apply rules to, as on
    /// HTTP/1.1), a TCP connection to the target, then a tunnel on the stream.
    private mutating func startConnect(
        stream: Int32, flow: FlowID, route: RequestRoute, head: HTTPRequestHead, _ output: inout SessionOutput
    ) {
        let request = FlowRequest(
            kind: .connect, method: head.method, endpoint: route.endpoint, path: route.path, query: route.query,
            outboundTarget: route.outboundTarget, url: route.url, version: "HTTP/2", headers: head.headers,
            authority: route.endpoint.hostHeaderValue, body: .none, stream: stream)
        output.trace(
            TraceEntry(
                .requestReceived, connection: connectionID, flow: flow,
                FlowMachine.requestReceivedFields(request, routed: true)))
        streams[stream]!.role = .connecting(route.endpoint, early: [])
        output.append(.connectUpstream(flow, route.endpoint, fresh: false))
    }

    /// A fresh `Sec-WebSocket-Key` (RFC 6455 §4.1: 16 random bytes, base64).
    static func webSocketKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64.encoded((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// What `RequestRoute` reads for this request: absolute-form on a forward listener (the
    /// request names its origin), origin-form on a reverse one, authority-form for CONNECT. An
    /// `OPTIONS *` (`:path` "*", RFC 9113 §8.3.1) to a forward listener is the absolute-form
    /// without a path that HTTP/1.1 uses for it (RFC 9112 §3.2.4).
    static func target(of request: HTTP2Headers.Request, mode: ProxyMode) -> String {
        if request.method == "CONNECT" { return request.authority ?? "" }
        guard case .forward = mode, let scheme = request.scheme, let authority = request.authority else {
            return request.path ?? "/"
        }
        let path = request.path == "*" ? "" : request.path ?? "/"
        return "\(scheme)://\(authority)\(path)"
    }

    /// Answers a request that goes nowhere on its own stream (the flow core makes the answer and
    /// the trace events, as for HTTP/1); the connection carries on.
    private mutating func refuse(
        stream: Int32, flow: FlowID, head: HTTPRequestHead?, route: RequestRoute?, _ refusal: RequestRoute.Refusal,
        _ output: inout SessionOutput
    ) {
        let placeholder = UpstreamEndpoint(scheme: "http", host: "", port: 80)
        let request = FlowRequest(
            kind: route?.kind ?? .exchange, method: head?.method ?? "", endpoint: route?.endpoint ?? placeholder,
            path: route?.path ?? "", query: route?.query, outboundTarget: "", url: route?.url ?? head?.target ?? "",
            version: "HTTP/2", headers: head?.headers ?? HTTPHeaders(), authority: "", body: .none, stream: stream)
        let actions = FlowMachine.refuse(
            id: flow, request: request, status: refusal.status, code: refusal.code, message: refusal.message,
            environment: environment, routed: route != nil)
        streams[stream]!.perform(actions, &output)
    }

    private mutating func endRequest(stream: Int32, trailers: HTTPHeaders?, _ output: inout SessionOutput) {
        guard streams[stream] != nil else { return }
        streams[stream]!.requestEnded = true
        streams[stream]!.flowInput(&output) { $0.requestEnd(trailers: trailers) }
    }

    /// Every open flow ends: the client connection is gone or broken.
    mutating func endEveryFlow(reason: String, _ output: inout SessionOutput) {
        for id in streams.ids where streams[id]?.flow != nil {
            streams[id]!.flowInput(&output) { $0.clientGone(reason: reason) }
        }
    }

    private mutating func forget(stream: Int32) {
        guard let removed = streams.remove(stream) else { return }
        streamOfFlow[removed.assignedFlow] = nil
    }

    /// Runs `body` on the stream of `flow`, if it is still there.
    mutating func withStream(
        of flow: FlowID, _ output: inout SessionOutput, _ body: (inout HTTP2Stream, inout SessionOutput) -> Void
    ) {
        guard let stream = streamOfFlow[flow], streams[stream] != nil else { return }
        body(&streams[stream]!, &output)
    }

    /// An upstream input for `flow`; nil when the flow's stream is gone (its connection is not needed).
    mutating func upstreamInput(_ flow: FlowID, _ body: (inout HTTP2Stream, inout SessionOutput) -> Void)
        -> [ProxyAction]?
    {
        guard streamOfFlow[flow] != nil else { return nil }
        var output = SessionOutput()
        withStream(of: flow, &output, body)
        afterInput(&output)
        return output.finish()
    }

    /// After every input: streams whose flow ended drop their flow ID, request DATA the flows took
    /// is credited back to the client unless the flow, its codec or its upstream socket holds the
    /// bound already (RFC 9113 §5.2.2: a receiver that cannot take more withholds WINDOW_UPDATE),
    /// our frames go out, and the connection closes when done.
    mutating func afterInput(_ output: inout SessionOutput) {
        // The streams this input reached (HTTP2StreamTable): no other stream changed. In stream
        // order: of several GOAWAYs asked for at once, the lowest stream's must lead.
        var visit: [HTTP2Stream] = []
        swap(&visit, &touchedStreams)  // the array of the last input, kept for its capacity
        streams.takeTouched(into: &visit)
        for stream in visit {
            let id = stream.streamID
            if let goAway = stream.requestedGoAway {
                stream.requestedGoAway = nil
                goAwayForFault(stream: id, goAway.code, thisStreamProcessed: goAway.thisStreamProcessed, &output)
            }
            if stream.ended { streamOfFlow[stream.assignedFlow] = nil }
            if stream.uncredited > 0,
                stream.flow == nil
                    || (stream.flow!.bufferedRequestBytes + (stream.upstream?.pendingByteCount ?? 0)
                        + stream.upstreamBacklog)
                        < configuration.maximumPendingUpstreamBytes
            {
                connection.consumed(stream: id, bytes: stream.uncredited)
                stream.uncredited = 0
            }
            if state != .closed { updateBodyTimer(stream, &output) }
        }
        visit.removeAll(keepingCapacity: true)
        touchedStreams = visit
        drainOutput(&output)
        // After the client's FIN no WINDOW_UPDATE can come: a stream waiting for the window
        // never moves again (HTTP2ProxySession+Stalls.swift).
        if clientReachedEOF, state != .closed, abandonStreamsWaitingForWindow(reason: "client-gone", &output) {
            drainOutput(&output)
        }
        if closesAfterOutput || connection.isFinished || (state == .goingAway && streams.isEmpty)
            || (clientReachedEOF && allAnswered)
        {
            if state != .closed {
                state = .closed
                if closeReason == nil { closeReason = clientReachedEOF ? "client-closed" : "http2-goaway" }
                output.append(.cancelTimer(.clientIdle))
                if headerTimerBlock != nil {
                    headerTimerBlock = nil
                    output.append(.cancelTimer(.requestHead))
                }
                output.append(.closeClient(afterFlush: true))
            }
            return
        }
        updateIdleTimer(&output)
        updateHeaderTimer(&output)
    }

    /// Takes our frames into one client write. Frames taken may close streams (our END_STREAM,
    /// RST_STREAM): handle what that says, a few rounds.
    mutating func drainOutput(_ output: inout SessionOutput) {
        for _ in 0..<4 {
            let bytes = connection.takeOutput()
            if !bytes.isEmpty { output.writeToClient(bytes) }
            let events = connection.takeEvents()
            if events.isEmpty { break }
            handle(events, &output)
        }
    }

    /// A `goaway` fault of the flow on `stream`: GOAWAY naming that stream, or the one before it
    /// (client streams are odd, RFC 9113 §5.1.1), as the last processed; nghttp2 then refuses
    /// the later streams, and the connection closes once the kept ones are done.
    private mutating func goAwayForFault(
        stream: Int32, _ code: HTTP2ErrorCode, thisStreamProcessed: Bool, _ output: inout SessionOutput
    ) {
        let last = thisStreamProcessed ? stream : max(0, stream - 2)
        // A later GOAWAY may only lower the last stream (§6.8): a second fault on a later stream
        // is already covered by the first.
        if let sent = goAwayLastStream, last >= sent { return }
        goAwayLastStream = last
        connection.goAway(code: code, lastStreamID: last, debug: "faultline fault")
        traceGoAway(sent: true, code: code, lastStreamID: last, debug: "faultline fault", &output)
        if state == .open { state = .goingAway }
        if closeReason == nil { closeReason = "http2-goaway" }
    }

    /// After the client's FIN: no flow is left and everything queued (or paced) has been taken. (A stream
    /// whose flow ended stays open in nghttp2 until the client's END_STREAM, which cannot come.)
    private var allAnswered: Bool {
        streams.inOrder.allSatisfy { $0.flow == nil && $0.pendingClientBytes == 0 && ($0.pacing?.isEmpty ?? true) }
    }

    func traceGoAway(
        sent: Bool, code: HTTP2ErrorCode, lastStreamID: Int32? = nil, debug: String, _ output: inout SessionOutput
    ) {
        var fields: [TraceField] = [.string("side", sent ? "proxy" : "client"), .string("code", code.description)]
        if let lastStreamID { fields.append(.int("last_stream_id", lastStreamID)) }
        if !debug.isEmpty { fields.append(.string("debug", debug)) }
        output.trace(TraceEntry(.http2GoAway, connection: connectionID, fields))
    }
}
