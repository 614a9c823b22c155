public import FaultlineCore
public import FaultlineFlow
import FaultlineHTTP1
public import FaultlineHTTP2
public import FaultlineRules
import FaultlineTrace

/// One HTTP/2 client connection (RFC 9113), with no I/O of its own: the framing layer between
/// the client's frames and one flow per stream.
///
/// # Theory of operation
///
/// An `HTTP2Connection` (FaultlineHTTP2, nghttp2 over memory) turns the client's bytes into
/// events and our submissions into frames. Each request stream becomes an `HTTP2Stream`: a
/// `FlowMachine` (the protocol-neutral core: rules, holds, faults, lineages, the flow's trace)
/// and an upstream (`UpstreamCodec`: HTTP/1.1, or a stream of an HTTP/2 origin connection) of its
/// own, so the streams of one connection go upstream side by side and a hold on one stream
/// leaves the others alone. The stream encodes its flow's client actions as HEADERS, DATA,
/// trailers and RST_STREAM. A `CONNECT` stream, and an extended `CONNECT` for WebSocket once the
/// origin took the upgrade, is a tunnel instead (HTTP2Stream+Tunnel.swift).
///
/// After every input the connection's queued frames go to the client in one write. Request DATA
/// is credited back to the client (`consumed`) once its flow has taken it and keeps less than
/// `maximumPendingUpstreamBytes` waiting, so a held request stops its client stream, not the
/// connection (RFC 9113 §5.2). Response DATA waits in the connection's per-stream queues while
/// the client's window is closed; the driver stops reading that flow's upstream when its queue
/// passes the same bound (`wantsUpstreamReadsPaused(flow:)`).
///
/// A protocol error of the client's ends the connection (GOAWAY, then close once written); an
/// error of one stream resets that stream only.
public struct HTTP2ProxySession {
    public let connectionID: ConnectionID
    let configuration: ProxyConfiguration
    let flowIDs: IDGenerator
    let environment: FlowEnvironment
    let connection: HTTP2Connection
    /// Open streams, by stream ID, and the stream of each flow.
    var streams = HTTP2StreamTable()
    var streamOfFlow = FlowStreamIndex()
    /// Where `afterInput` lists the streams an input reached; empty between inputs.
    var touchedStreams: [HTTP2Stream] = []
    /// The endpoint the latest request was routed to, which the next one to the same origin
    /// reuses (`RequestRoute.decide`).
    var previousEndpoint: UpstreamEndpoint?
    public internal(set) var closeReason: String?
    var state: State = .open

    enum State {
        case open
        /// A GOAWAY went out or came in: no new streams; close once the open ones are done.
        case goingAway
        case closed
    }

    /// The idle timer is armed (HTTP2ProxySession+Stalls.swift): no stream is open, or every
    /// open stream only waited for the client's flow-control window when it was armed.
    var idleArmed = false
    /// What the idle timer was armed for: false, no stream open; true, streams waiting for the
    /// window, with the progress they had made then (`waitingProgress`).
    var idleArmedForWaiting = false
    var idleProgressMark = 0
    /// The header block (`HTTP2Connection.unfinishedHeaderBlock`) the `requestHead` timer runs for.
    var headerTimerBlock: Int?
    /// The connection is given up (a stall ran out its timer): close once this input's frames
    /// are out, whatever nghttp2 still has open.
    var closesAfterOutput = false
    /// The client shut down its sending side.
    var clientReachedEOF = false
    /// The highest stream whose request started a flow (or a tunnel): the last stream a GOAWAY
    /// of ours names when a stalled header block ends the connection.
    var lastStreamStarted: Int32 = 0
    /// The last stream ID of the GOAWAY a fault sent, if one did.
    var goAwayLastStream: Int32?
    /// The server is stopping (``shutDown()``).
    var shuttingDown = false

    /// A session for a client connection that speaks HTTP/2 (h2 chosen by ALPN, or h2c with
    /// prior knowledge, RFC 9113 §3.3).
    public init(
        connectionID: ConnectionID, configuration: ProxyConfiguration, tracing: FlowTracing, flowIDs: IDGenerator,
        limits: HTTP2Connection.Limits = HTTP2Connection.Limits()
    ) throws(HTTP2Error) {
        self.connectionID = connectionID
        self.configuration = configuration
        self.flowIDs = flowIDs
        self.environment = FlowEnvironment(
            rules: configuration.rules, responseTimeout: configuration.responseTimeout, tracing: tracing)
        connection = try HTTP2Connection(role: .server, limits: limits)
    }
}

extension HTTP2ProxySession: ClientSession {
    public mutating func start() -> [ProxyAction] {
        var output = SessionOutput()
        afterInput(&output)  // our SETTINGS (RFC 9113 §3.4), and the idle timer
        return output.finish()
    }

    public mutating func clientDidRead(_ bytes: UnsafeRawBufferPointer) -> [ProxyAction] {
        var output = SessionOutput()
        guard state != .closed else { return [] }
        handle(connection.receive(bytes), &output)
        afterInput(&output)
        return output.finish()
    }

    /// The client sends nothing more; its streams' answers may still go out. A held flow has
    /// nobody waiting for it, and a request whose body stopped short cannot end (no END_STREAM
    /// can follow a FIN): both end as on HTTP/1 (400 `incomplete-message` when nothing was sent).
    public mutating func clientDidReadEOF() -> [ProxyAction] {
        var output = SessionOutput()
        clientReachedEOF = true
        for id in streams.ids {
            guard let stream = streams[id], let flow = stream.flow else { continue }
            if flow.isHeld {
                streams[id]!.flowInput(&output) {
                    $0.clientGone(reason: "client closed the connection while its flow was held")
                }
            } else if !stream.requestEnded {
                let error = HTTP1Error.incompleteMessage
                streams[id]!.flowInput(&output) {
                    $0.requestMalformed(
                        status: error.status, code: error.code,
                        message: "The client closed the connection before stream \(id)'s request ended (no END_STREAM)."
                    )
                }
            }
        }
        afterInput(&output)
        return output.finish()
    }

    public mutating func clientDidClose() -> [ProxyAction] {
        var output = SessionOutput()
        // Once the server is stopping, the driver closes what its grace period did not see end.
        let reason =
            shuttingDown ? "the connection closed while the proxy was shutting down" : "client closed the connection"
        endEveryFlow(reason: reason, &output)
        if closeReason == nil { closeReason = "client-closed" }
        state = .closed
        return output.finish()
    }

    /// The client stopped reading for the send timeout (see `ClientSession.sendTimedOut`): every
    /// stream's flow ends; no frame can reach the client any more, so none is written.
    public mutating func sendTimedOut() -> [ProxyAction] {
        var output = SessionOutput()
        guard state != .closed else { return [] }
        endEveryFlow(reason: "send-timeout", &output)
        if closeReason == nil { closeReason = "send-timeout" }
        state = .closed
        return output.finish()
    }

    public mutating func timerFired(_ timer: SessionTimer) -> [ProxyAction] {
        var output = SessionOutput()
        switch timer {
        case .clientIdle:
            idleTimerFired(&output)
        case .flow(let id, let flowTimer):
            withStream(of: id, &output) { stream, output in stream.flowInput(&output) { $0.timerFired(flowTimer) } }
        case .streamPacing(let id):
            streams[id]?.releaseSlice(&output)
        case .requestHead:
            headerTimerFired(&output)
        case .streamBody(let id):
            bodyTimerFired(stream: id, &output)
        case .requestBody:
            break  // HTTP/1 only
        }
        afterInput(&output)
        return output.finish()
    }

    public mutating func holdEnded(flow id: FlowID, _ ending: HoldEnding) -> [ProxyAction] {
        var output = SessionOutput()
        withStream(of: id, &output) { stream, output in stream.flowInput(&output) { $0.holdEnded(ending) } }
        afterInput(&output)
        return output.finish()
    }

    // A stream's upstream serves its flow, or its tunnel (HTTP2Stream+Tunnel.swift).

    public mutating func upstreamDidConnect(flow id: FlowID, _ info: UpstreamConnectionInfo) -> [ProxyAction] {
        upstreamInput(id) { stream, output in
            if stream.isConnecting {
                stream.connectTunnelReady(info, &output)
            } else {
                stream.flowUpstreamConnected(id, info, &output)
            }
        } ?? [.closeUpstream(id)]
    }

    public mutating func upstreamDidFailToConnect(flow id: FlowID, _ failure: UpstreamFailure) -> [ProxyAction] {
        upstreamInput(id) { stream, output in
            if stream.isConnecting {
                stream.connectTunnelFailed(failure, &output)
            } else {
                stream.flowUpstreamFailed(id, failure, &output)
            }
        } ?? []
    }

    public mutating func ruleDecided(flow id: FlowID, _ answer: RuleAnswer) -> [ProxyAction] {
        upstreamInput(id) { stream, output in stream.flowInput(&output) { $0.decided(answer) } } ?? []
    }

    public mutating func upstreamDidRead(flow id: FlowID, _ bytes: UnsafeRawBufferPointer) -> [ProxyAction] {
        upstreamInput(id) { stream, output in
            if stream.isRelaying {
                stream.relayFromUpstream(Array(bytes)[...])
            } else {
                stream.flowUpstreamRead(id, bytes, &output)
            }
        } ?? []
    }

    public mutating func upstreamDidReadEOF(flow id: FlowID) -> [ProxyAction] {
        upstreamInput(id) { stream, output in
            if stream.isRelaying { stream.tunnelUpstreamEnded(&output) } else { stream.flowUpstreamEOF(id, &output) }
        } ?? []
    }

    public mutating func upstreamDidClose(flow id: FlowID) -> [ProxyAction] {
        upstreamInput(id) { stream, output in
            if stream.isRelaying {
                stream.tunnelUpstreamClosed(&output)
            } else {
                stream.flowUpstreamClosed(id, &output)
            }
        } ?? []
    }

    /// The server is stopping: a graceful shutdown (RFC 9113 §6.8). GOAWAY NO_ERROR goes out
    /// naming the highest stream the session accepted as the last, so the client knows that any
    /// later stream it opened was not processed and may be retried elsewhere (§8.7); nghttp2
    /// ignores the HEADERS of such streams (none of them becomes a flow). The streams already
    /// open finish as they would have, and the connection closes once they are done, at once
    /// when none is open (`afterInput`, as after any GOAWAY). A connection already going away (a
    /// GOAWAY either way, a connection error) carries on as it was. How long the server waits
    /// is its business (`ProxyServer.stop`): at its deadline it closes the connection, and
    /// ``clientDidClose()`` ends what is left.
    public mutating func shutDown() -> [ProxyAction] {
        var output = SessionOutput()
        guard state != .closed else { return [] }
        shuttingDown = true
        if state == .open {
            let last = connection.lastProcessedStreamID
            connection.goAway(code: .noError, lastStreamID: last, debug: "shutdown")
            traceGoAway(sent: true, code: .noError, lastStreamID: last, debug: "shutdown", &output)
            state = .goingAway
            if closeReason == nil { closeReason = "shutdown" }
        }
        afterInput(&output)
        return output.finish()
    }

    /// Flow control does the pausing: a stream the client stops reading stops only itself.
    public var wantsClientReadsPaused: Bool { false }

    /// A flow's upstream pauses while its response waits behind a gate or its client stream's
    /// queue is full (the client's window is closed, or a throttle paces the stream): only that flow.
    public func wantsUpstreamReadsPaused(flow id: FlowID) -> Bool {
        guard let streamID = streamOfFlow[id], let stream = streams.peek(streamID) else { return false }
        return (stream.flow?.bufferedResponseBytes ?? 0) > HTTP1ProxySession.heldResponseLimit
            || stream.pendingClientBytes > configuration.maximumPendingUpstreamBytes
    }

    public var isClosed: Bool { state == .closed }

    /// The connection carries other streams: a flow whose upstream does not take its request
    /// body stops its own stream (no credit), never the client connection.
    public var pausesClientForUpstreamBacklog: Bool { false }

    public mutating func upstreamBacklogChanged(flow id: FlowID, bytes: Int) -> [ProxyAction] {
        upstreamInput(id) { stream, _ in stream.upstreamBacklog = bytes } ?? []
    }
}
