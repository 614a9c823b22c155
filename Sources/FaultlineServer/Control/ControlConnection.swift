import FaultlineConfig
import FaultlineCore
import FaultlineHTTP1
import FaultlinePosix
import FaultlineTrace
import Synchronization

/// One client connection of the control listener: decodes HTTP/1.1 requests, has `ControlAPI`
/// answer them, and carries out the answers that take time without ever blocking the loop.
///
/// Theory of operation. The state is:
/// - `reading`: requests are decoded and answered one after another (keep-alive and pipelining
///   work; HTTP/1.0 or `Connection: close` ends the connection after the answer);
/// - `waiting`: a hold wait is pending. The registry's `whenHeld` callback (from any thread) hops
///   back here with `EventLoop.execute`; a loop timer answers 408 unless `cancelWait` says the hold
///   already arrived (then its callback is on its way). Bytes the client pipelines meanwhile stay in
///   the decoder; EOF means the client gave up, so the wait is cancelled and the connection closed;
/// - `streaming`: a trace stream or the web UI's event stream (chunked for HTTP/1.1) runs until
///   the client sends EOF or the connection closes; client bytes are ignored;
/// - `closed`: `didCloseWith` cancelled whatever was pending (wait, timer, trace subscription).
///
/// Loop-thread confined: every entry point is a `StreamConnectionDelegate` callback, a timer, or
/// a task hopped onto `connection.loop`.
final class ControlConnection: StreamConnectionDelegate {
    private enum State {
        case reading
        case waiting(Wait)
        case streaming(ControlTraceStream, chunked: Bool, StreamOverflow)
        case closed
    }

    /// What a stream does about lines its client could not take in time.
    private enum StreamOverflow {
        /// The trace stream: ends the connection (the client sees a body cut short).
        case cutting
        /// The web UI: drops lines and says how many. `unreported` counts dropped lines not yet
        /// reported; `allowance` is how many bytes may wait in the socket's buffer (the backlog,
        /// plus the history the stream began with, so a page that opens under load does not lose
        /// live lines only because its history is still on the way).
        case dropping(unreported: Int, allowance: Int)
    }

    private struct Wait {
        let serial: UInt64
        let name: String
        let seconds: Double
        /// The registry's wait token; nil when the hold existed already (its callback is queued).
        let token: UInt64?
        let timer: TimerHandle
    }

    private let connection: StreamConnection
    private let api: ControlAPI
    private let onClose: (ControlConnection) -> Void
    private var decoder = HTTP1RequestDecoder()
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var state = State.reading
    private var waitSerial: UInt64 = 0
    /// The connection ends after the current answer (HTTP/1.0, or `Connection: close`).
    private var closeAfterAnswer = false

    init(connection: StreamConnection, api: ControlAPI, onClose: @escaping (ControlConnection) -> Void) {
        self.connection = connection
        self.api = api
        self.onClose = onClose
    }

    func start() {
        connection.delegate = self
        connection.start()
    }

    private var limit: Int { api.configuration.maximumBodyBytes }

    // MARK: Requests

    /// Decodes and answers requests until one takes time, more bytes are needed, or the connection ends.
    private func decodeRequests() {
        while case .reading = state, connection.isOpen {
            let event: HTTP1RequestEvent?
            do throws(HTTP1Error) {
                event = try decoder.nextEvent()
            } catch {
                closeAfterAnswer = true
                answer(error.status, ControlJSON.error("malformed request: \(error.description)"))
                return
            }
            guard let event else { break }
            switch event {
            case .head(let head):
                guard begin(head) else { return }
            case .body(let bytes):
                body.append(contentsOf: bytes)
                if body.count > limit {
                    refuseLargeBody()
                    return
                }
            case .end:
                guard let head else { preconditionFailure("request end without a head") }
                self.head = nil
                dispatch(head, body)
                body = []
            }
        }
        if case .reading = state, decoder.sawEOF, decoder.isAtMessageBoundary, connection.isOpen {
            connection.closeAfterFlush()
        }
    }

    /// Checks a new head before its body arrives; false when it was answered already.
    private func begin(_ head: HTTPRequestHead) -> Bool {
        self.head = head
        body = []
        if head.method == "CONNECT" {
            closeAfterAnswer = true
            answer(405, ControlJSON.error("the control API does not tunnel"), allow: ["GET", "POST", "PUT"])
            return false
        }
        if case .contentLength(let length) = decoder.framing, length > Int64(limit) {
            refuseLargeBody()
            return false
        }
        if head.version == .http1_1, head.headers.first(name: "expect")?.lowercased() == "100-continue" {
            // RFC 9110 §10.1.1: tell the client to send the body rather than make it wait.
            connection.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        return true
    }

    private func refuseLargeBody() {
        closeAfterAnswer = true
        answer(413, ControlJSON.error("request bodies are limited to \(limit) bytes"))
    }

    private func dispatch(_ head: HTTPRequestHead, _ body: [UInt8]) {
        let connectionTokens = head.headers.values(name: "connection").flatMap {
            $0.lowercased().split(separator: ",").map { String($0.filter { $0 != " " && $0 != "\t" }) }
        }
        // HEAD is answered like any method the API does not take (405 with a body), so the
        // connection ends after it: the client would not read that body (RFC 9110 §9.3.2).
        closeAfterAnswer = head.version != .http1_1 || connectionTokens.contains("close") || head.method == "HEAD"
        guard let request = ControlRequest(method: head.method, target: head.target, headers: head.headers, body: body)
        else {
            answer(400, ControlJSON.error("expected a path such as /v1/health, not '\(head.target)'"))
            return
        }
        switch api.handle(request) {
        case .json(let status, let value, let allow):
            answer(status, value, allow: allow)
        case .waitForHold(let name, let timeout):
            startWait(name, timeout: timeout)
        case .traceStream:
            startStream(version: head.version, forUI: false)
        case .uiEvents:
            startStream(version: head.version, forUI: true)
        case .document(let status, let contentType, let body, let headers):
            respond(status, contentType: contentType, body, headers: headers)
        }
    }

    /// Writes a complete JSON answer; closes after it when the request asked to.
    private func answer(_ status: Int, _ value: JSONValue, allow: [String] = []) {
        var payload = value.jsonBytes()
        payload.append(UInt8(ascii: "\n"))
        var headers = HTTPHeaders()
        if !allow.isEmpty { headers.add(name: "Allow", value: allow.joined(separator: ", ")) }
        // RFC 6750 §3: a 401 names the scheme the client must use.
        if status == 401 { headers.add(name: "WWW-Authenticate", value: "Bearer realm=\"faultline\"") }
        respond(status, contentType: "application/json", payload, headers: headers)
    }

    /// Writes a complete answer with `Content-Length` and `Cache-Control: no-store` (nothing here
    /// may be cached: it is live state or needs a session); closes after it when the request asked to.
    private func respond(_ status: Int, contentType: String, _ payload: [UInt8], headers extra: HTTPHeaders) {
        var headers: HTTPHeaders = [
            ("Content-Type", contentType), ("Content-Length", String(payload.count)), ("Cache-Control", "no-store"),
        ]
        for field in extra { headers.add(name: field.name, value: field.value) }
        if closeAfterAnswer { headers.add(name: "Connection", value: "close") }
        var bytes: [UInt8] = []
        HTTP1Encoder.encode(
            HTTPResponseHead(status: status, reason: Self.reasonPhrase(status), headers: headers), into: &bytes)
        bytes.append(contentsOf: payload)
        connection.write(bytes)
        if closeAfterAnswer { connection.closeAfterFlush() }
    }

    // MARK: Hold waits

    private func startWait(_ name: String, timeout: Duration) {
        waitSerial += 1
        let serial = waitSerial
        let bound = LoopBound(WeakControlConnection(self), on: connection.loop)
        let token = api.runtime.holds.whenHeld(name) { info in
            bound.loop.execute { bound.value.connection?.holdAppeared(info, serial: serial) }
        }
        let timer = connection.loop.scheduleTimer(after: timeout) { [weak self] in
            self?.waitTimedOut(serial: serial)
        }
        state = .waiting(Wait(serial: serial, name: name, seconds: timeout.inSeconds, token: token, timer: timer))
        api.pendingWaits.add(1, ordering: .relaxed)
    }

    /// Leaves the waiting state before its answer is written (writing may close the connection,
    /// and the close must not find the wait still pending).
    private func leaveWait(_ wait: Wait) {
        connection.loop.cancelTimer(wait.timer)
        api.pendingWaits.subtract(1, ordering: .relaxed)
        state = .reading
    }

    private func holdAppeared(_ info: HoldInfo, serial: UInt64) {
        guard case .waiting(let wait) = state, wait.serial == serial, connection.isOpen else { return }
        leaveWait(wait)
        answer(200, ControlJSON.hold(info))
        decodeRequests()
    }

    private func waitTimedOut(serial: UInt64) {
        guard case .waiting(let wait) = state, wait.serial == serial, connection.isOpen else { return }
        // A false `cancelWait` means the hold arrived meanwhile: its answer is already queued.
        guard let token = wait.token, api.runtime.holds.cancelWait(token) else { return }
        leaveWait(wait)
        // RFC 9110 §15.5.9: a server sending 408 should close the connection.
        closeAfterAnswer = true
        answer(
            408, ControlJSON.error("no hold named '\(wait.name)' appeared within \(Self.secondsText(wait.seconds)) s"))
    }

    // MARK: Trace stream

    /// Starts `GET /v1/trace/stream` or, `forUI`, the web UI's events. The UI's stream begins
    /// with the recent past (`TraceRecorder.recentLines`, up to the subscription so no line comes
    /// twice) and a `{"ui":"live"}` line; where a slow browser made it drop lines, a
    /// `{"ui":"dropped","count":N}` line stands in their place, and the stream goes on.
    private func startStream(version: HTTPVersion, forUI: Bool) {
        // HTTP/1.0 has no chunked coding (RFC 9112 §7.1): the stream is then close-delimited.
        let chunked = version == .http1_1
        var headers: HTTPHeaders = [("Content-Type", "application/x-ndjson"), ("Cache-Control", "no-store")]
        headers.add(name: chunked ? "Transfer-Encoding" : "Connection", value: chunked ? "chunked" : "close")
        let stream = ControlTraceStream(trace: api.trace)
        let deliver: ControlTraceStream.Deliver = { [weak self] bytes, dropped in
            self?.streamDelivered(bytes, dropped: dropped)
        }
        let limit = forUI ? api.configuration.maximumUIBacklog : api.configuration.maximumStreamBacklog
        // Subscribe before the head goes out: a client that has read the head knows every later
        // line reaches it.
        let subscribedAfter = stream.start(
            limit: limit, pace: forUI ? Self.uiPace : .zero, deliver: LoopBound(deliver, on: connection.loop))
        var bytes: [UInt8] = []
        HTTP1Encoder.encode(HTTPResponseHead(status: 200, reason: "OK", headers: headers), into: &bytes)
        connection.write(bytes)
        guard forUI else {
            state = .streaming(stream, chunked: chunked, .cutting)
            return
        }
        var history = Array(
            TraceLines.prefix(
                api.trace.recentLines(maxBytes: api.configuration.uiHistoryBytes), throughSeq: subscribedAfter))
        history.append(contentsOf: Array("{\"ui\":\"live\",\"after\":\(subscribedAfter)}\n".utf8))
        let allowance = api.configuration.maximumUIBacklog + history.count
        state = .streaming(stream, chunked: chunked, .dropping(unreported: 0, allowance: allowance))
        writeStreamed(history, chunked: chunked)
    }

    /// How long the web UI's lines gather before they go out together (`ControlTraceStream`).
    static let uiPace: Duration = .milliseconds(25)

    private func streamDelivered(_ lines: [UInt8], dropped: Int) {
        guard case .streaming(let stream, let chunked, let overflow) = state, connection.isOpen else { return }
        switch overflow {
        case .cutting:
            if !lines.isEmpty { writeStreamed(lines, chunked: chunked) }
            // A reader that fell this far behind would otherwise grow our memory without bound; cut
            // it off, leaving the body unterminated so the client can tell it lost lines.
            if dropped > 0 || connection.outboundBufferedBytes > api.configuration.maximumStreamBacklog {
                connection.close()
            }
        case .dropping(let earlier, let allowance):
            // A browser that does not read fast enough loses lines, not the stream: they are
            // counted, and the count goes out in their place once it reads again.
            guard connection.outboundBufferedBytes <= allowance else {
                let unreported = earlier + TraceLines.count(in: lines) + dropped
                state = .streaming(stream, chunked: chunked, .dropping(unreported: unreported, allowance: allowance))
                return
            }
            var bytes: [UInt8] = []
            if earlier > 0 { bytes += Self.droppedLine(earlier) }
            bytes += lines
            if dropped > 0 { bytes += Self.droppedLine(dropped) }
            state = .streaming(stream, chunked: chunked, .dropping(unreported: 0, allowance: allowance))
            if !bytes.isEmpty { writeStreamed(bytes, chunked: chunked) }
        }
    }

    /// Ends a stream in progress as a complete body (the last chunk, or the close that delimits
    /// an HTTP/1.0 one) and closes after it; other connections are left to the loop's shutdown.
    func endStream() {
        guard case .streaming(let stream, let chunked, _) = state, connection.isOpen else { return }
        stream.stop()
        if chunked {
            var bytes: [UInt8] = []
            HTTP1Encoder.encodeLastChunk(trailers: nil, into: &bytes)
            connection.write(bytes)
        }
        connection.closeAfterFlush()
    }

    private func writeStreamed(_ payload: [UInt8], chunked: Bool) {
        if chunked {
            var bytes: [UInt8] = []
            HTTP1Encoder.encodeChunk(payload, into: &bytes)
            connection.write(bytes)
        } else {
            connection.write(payload)
        }
    }

    private static func droppedLine(_ count: Int) -> [UInt8] {
        Array("{\"ui\":\"dropped\",\"count\":\(count)}\n".utf8)
    }

    // MARK: StreamConnectionDelegate

    func streamConnection(_ connection: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        switch state {
        case .reading:
            decoder.receive(bytes)
            decodeRequests()
        case .waiting:
            decoder.receive(bytes)
            if decoder.bufferedByteCount > 2 * limit { connection.close() }
        case .streaming, .closed:
            break
        }
    }

    func streamConnectionDidReadEOF(_ connection: StreamConnection) {
        decoder.receiveEOF()
        switch state {
        case .reading: decodeRequests()
        case .waiting, .streaming: connection.close()
        case .closed: break
        }
    }

    func streamConnectionDidDrainOutbound(_ connection: StreamConnection) {}

    func streamConnection(_ connection: StreamConnection, didCloseWith error: SystemError?) {
        switch state {
        case .waiting(let wait):
            if let token = wait.token { api.runtime.holds.cancelWait(token) }
            leaveWait(wait)
        case .streaming(let stream, _, _):
            stream.stop()
        case .reading, .closed:
            break
        }
        state = .closed
        onClose(self)
    }

    // MARK: Helpers

    private static func secondsText(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    /// The status line's reason phrase: ``HTTPReasonPhrase/standard(for:)``.
    static func reasonPhrase(_ status: Int) -> String {
        HTTPReasonPhrase.standard(for: status)
    }
}

/// A weak reference a cross-thread callback can carry (inside a `LoopBound`) without keeping
/// a closed connection alive.
private struct WeakControlConnection {
    weak var connection: ControlConnection?
    init(_ connection: ControlConnection) { self.connection = connection }
}
