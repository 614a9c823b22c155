import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineHTTP2

/// The body timeout on HTTP/2 (`ProxyConfiguration.bodyTimeout`, as nginx's
/// `client_body_timeout`): a stream whose request body stops mid-way holds its flow and its
/// upstream only so long. Each stream has its own clock (`SessionTimer.streamBody`), started when
/// its request head leaves a body to come and again by each input that brought DATA for it,
/// stopped when the body ends (END_STREAM or trailers) or the flow does; other streams of the
/// connection are never touched by it.
///
/// When it runs out the flow ends as an HTTP/1 body that times out does (`requestMalformed`: a
/// `protocol.error` with code `body-timeout`, the upstream closed): a `408` on the stream when
/// no response has begun, else the stream reset (RST_STREAM, the flow's broken client). After a
/// whole `408` the stream is reset with NO_ERROR, which asks the client to stop sending the
/// request without error (RFC 9113 §8.1), so a silent client cannot keep the stream open.
///
/// Silence the proxy causes is not the client's: while the client cannot send for want of
/// window we have not given back (RFC 9113 §5.2.2, §6.9: a flow or upstream that holds the
/// bound gets no credit), a run-out clock starts again instead, as the driver does for an
/// HTTP/1 client whose reads it paused. The window may open again at any moment before the next
/// run-out, unseen, so that one starts the clock once more too: the client always has a whole
/// timeout after it could send again (and at most two).
extension HTTP2ProxySession {
    /// After every input, for each stream the input reached (`afterInput`): the clock runs while
    /// the stream's request body is being read, and starts again after an input that brought DATA
    /// for it.
    func updateBodyTimer(_ stream: HTTP2Stream, _ output: inout SessionOutput) {
        let id = stream.streamID
        let reading = stream.readsRequestBody
        if reading, !stream.bodyTimerArmed || stream.bodyArrived {
            stream.bodyTimerArmed = true
            stream.bodyArrived = false
            stream.bodyWaitedForWindow = false
            output.append(.setTimer(.streamBody(id), configuration.bodyTimeout))
        } else if !reading, stream.bodyTimerArmed {
            stream.bodyTimerArmed = false
            output.append(.cancelTimer(.streamBody(id)))
        }
    }

    /// The clock of stream `id` ran out (see the type's notes).
    mutating func bodyTimerFired(stream id: Int32, _ output: inout SessionOutput) {
        guard state != .closed, let stream = streams[id], stream.bodyTimerArmed else { return }
        stream.bodyTimerArmed = false
        guard stream.readsRequestBody else { return }
        let outOfWindow = connection.isPeerOutOfWindow(stream: id)
        if outOfWindow || stream.bodyWaitedForWindow {
            stream.bodyWaitedForWindow = outOfWindow
            stream.bodyTimerArmed = true
            output.append(.setTimer(.streamBody(id), configuration.bodyTimeout))
            return
        }
        let seconds = JSONNumber(configuration.bodyTimeout.inSeconds)
        let error = HTTP1Error.bodyTimeout
        streams[id]!.flowInput(&output) {
            $0.requestMalformed(
                status: error.status, code: error.code,
                message: "No DATA of stream \(id)'s request body arrived within the body timeout (\(seconds) s).")
        }
        // The 408 (or the reset of a response that had begun) goes out now; a whole 408 leaves
        // the stream half-closed, waiting for an END_STREAM the client stopped short of.
        drainOutput(&output)
        if streams[id] != nil, connection.hasSentEndStream(stream: id) {
            connection.reset(stream: id, code: .noError)
        }
    }
}

extension HTTP2Stream {
    /// The stream's request body is being read by its flow: an exchange (not a tunnel's DATA)
    /// whose flow is on and whose request has not ended.
    var readsRequestBody: Bool {
        guard case .exchange = role else { return false }
        return flow != nil && !requestEnded
    }
}
