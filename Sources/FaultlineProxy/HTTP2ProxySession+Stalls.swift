import FaultlineCore
import FaultlineFlow
import FaultlineHTTP2
import FaultlineTrace

/// A client that stalls the connection instead of using it: output waiting for a window the
/// client never opens, or a header block it began and never finished. Each has a bound, so such
/// a client cannot pin a connection (and its file descriptor) for ever.
///
/// - Output waiting for the client's window (RFC 9113 §6.9) after the client's FIN: only a
///   WINDOW_UPDATE opens the window, and a client that has sent FIN sends nothing more, so the
///   stream can never finish. Its flow ends (`flow.aborted`, reason `client-gone`), the stream is
///   reset (CANCEL), and the connection closes once no stream is left (nginx closes an HTTP/2
///   connection at the client's FIN outright; we still answer the streams that can finish).
/// - Output waiting for the window without a FIN: the idle timeout applies as if no stream were
///   open; a connection that makes no progress (no DATA leaves, no stream begins) over a whole
///   idle timeout has its waiting streams ended (reason `idle-timeout`, reset CANCEL), GOAWAY
///   NO_ERROR goes out and the connection closes.
/// - A header block not complete within `ProxyConfiguration.headerTimeout` (the HTTP/1 header
///   timeout), counted from its HEADERS frame's header: a HEADERS frame whose payload trickles
///   in, or a HEADERS without END_HEADERS whose CONTINUATION frames do not complete the block.
///   No other frame can be processed until the block ends (§4.3, §6.10), so the connection is
///   over. GOAWAY PROTOCOL_ERROR,
///   as nginx sends when a client leaves a frame or header block incomplete past its timeout
///   (`client_header_timeout`, "client timed out"); ENHANCE_YOUR_CALM (§10.5) is kept for what
///   loads the proxy (the CONTINUATION flood), and a stalled block costs it nothing but the
///   connection. Traced as `protocol.error` code `header-timeout`.
extension HTTP2ProxySession {
    /// Whether every open stream only waits for the client's window (none is open: false).
    var everyStreamWaitsForWindow: Bool {
        !streams.isEmpty && streams.inOrder.allSatisfy { connection.isWaitingForWindow(stream: $0.streamID) }
    }

    /// Ends the streams whose output waits for the client's window: their flows (or tunnels) end
    /// with `reason`, and each stream is reset with CANCEL (RFC 9113 §6.4), which drops what it
    /// had queued. True if any did; the caller takes the frames.
    mutating func abandonStreamsWaitingForWindow(reason: String, _ output: inout SessionOutput) -> Bool {
        var abandoned = false
        for id in streams.ids where connection.isWaitingForWindow(stream: id) {
            guard let stream = streams[id] else { continue }
            if stream.isTunnel {
                streams[id]!.tunnelClientGone(&output)
            } else if stream.flow != nil {
                streams[id]!.flowInput(&output) { $0.clientGone(reason: reason) }
            }
            streams[id]!.pacing = nil
            connection.reset(stream: id, code: .cancel)
            abandoned = true
        }
        return abandoned
    }

    /// How far the connection has got, as far as its streams waiting for the window go: DATA
    /// octets that left plus streams the client began. Unchanged over a whole idle timeout means
    /// the client neither read nor asked for anything.
    var waitingProgress: Int {
        connection.dataOctetsSent + Int(lastStreamStarted)
    }

    /// After every input that leaves the connection open. The idle timer runs while no stream is
    /// open (and the connection is not going away), armed when the last stream ends and
    /// cancelled when one begins, as it always did. It also runs while every open stream only
    /// waits for the client's window; then it is checked when it fires rather than moved at
    /// every input (a window-bound download would re-arm it at every WINDOW_UPDATE): if the
    /// connection made progress meanwhile it runs once more, so a stall is cut between one and
    /// two idle timeouts after it began.
    mutating func updateIdleTimer(_ output: inout SessionOutput) {
        if streams.isEmpty, state == .open {
            guard !idleArmed || idleArmedForWaiting else { return }
            armIdleTimer(waiting: false, &output)
        } else if idleArmed, !idleArmedForWaiting {
            idleArmed = false
            output.append(.cancelTimer(.clientIdle))
            if everyStreamWaitsForWindow { armIdleTimer(waiting: true, &output) }
        } else if !idleArmed, everyStreamWaitsForWindow {
            armIdleTimer(waiting: true, &output)
        }
    }

    private mutating func armIdleTimer(waiting: Bool, _ output: inout SessionOutput) {
        idleArmed = true
        idleArmedForWaiting = waiting
        idleProgressMark = waitingProgress
        output.append(.setTimer(.clientIdle, configuration.clientIdleTimeout))
    }

    /// The idle timeout ran out. An idle connection goes away gracefully (GOAWAY NO_ERROR,
    /// RFC 9113 §6.8, naming the last stream processed). One whose streams all wait for the
    /// window and that made no progress since the timer was armed has them ended (reason
    /// `idle-timeout`, RST_STREAM CANCEL), GOAWAY NO_ERROR, and is closed; with progress the
    /// timer runs once more.
    mutating func idleTimerFired(_ output: inout SessionOutput) {
        idleArmed = false
        guard state != .closed else { return }
        if streams.isEmpty {
            guard state == .open, !idleArmedForWaiting else { return }
            connection.goAway(code: .noError, debug: "idle")
            traceGoAway(sent: true, code: .noError, debug: "idle", &output)
            state = .goingAway
            if closeReason == nil { closeReason = "idle-timeout" }
            return
        }
        guard idleArmedForWaiting, everyStreamWaitsForWindow else { return }
        guard waitingProgress == idleProgressMark else {
            armIdleTimer(waiting: true, &output)
            return
        }
        _ = abandonStreamsWaitingForWindow(reason: "idle-timeout", &output)
        if state == .open {
            connection.goAway(code: .noError, debug: "idle")
            traceGoAway(sent: true, code: .noError, debug: "idle", &output)
            state = .goingAway
        }
        if closeReason == nil { closeReason = "idle-timeout" }
        closesAfterOutput = true
    }

    /// After every input that leaves the connection open: the `requestHead` timer runs for the
    /// header block the client has left unfinished, and starts over for the next one.
    mutating func updateHeaderTimer(_ output: inout SessionOutput) {
        let open = connection.unfinishedHeaderBlock
        guard open != headerTimerBlock else { return }
        headerTimerBlock = open
        if open != nil {
            output.append(.setTimer(.requestHead, configuration.headerTimeout))
        } else {
            output.append(.cancelTimer(.requestHead))
        }
    }

    /// The header timeout ran out with the block still unfinished: a connection error of the
    /// client's (see the type's notes for PROTOCOL_ERROR). The GOAWAY names the last stream
    /// whose request became a flow; every flow ends, and the connection closes.
    mutating func headerTimerFired(_ output: inout SessionOutput) {
        guard let block = headerTimerBlock, state != .closed else { return }
        headerTimerBlock = nil
        guard connection.unfinishedHeaderBlock == block else { return }
        let seconds = JSONNumber(configuration.headerTimeout.inSeconds)
        let message =
            "The client began a header block (a HEADERS frame) and did not finish it (the frame's payload, or CONTINUATION frames up to END_HEADERS) within the header timeout (\(seconds) s); RFC 9113 §6.10 lets no other frame through until it ends."
        output.trace(
            TraceEntry(
                .protocolError, connection: connectionID,
                [.string("side", "client"), .string("code", "header-timeout"), .string("message", message)]))
        let last = lastStreamStarted
        connection.goAway(code: .protocolError, lastStreamID: last, debug: "header-timeout")
        traceGoAway(sent: true, code: .protocolError, lastStreamID: last, debug: "header-timeout", &output)
        endEveryFlow(reason: "HTTP/2 connection error: header-timeout", &output)
        if closeReason == nil { closeReason = "http2-\(HTTP2ErrorCode.protocolError)" }
        if state == .open { state = .goingAway }
        closesAfterOutput = true
    }
}
