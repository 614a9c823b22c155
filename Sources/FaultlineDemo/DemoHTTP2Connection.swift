import FaultlineCore
import FaultlineHTTP1
import FaultlineHTTP2
import FaultlinePosix

/// The client end of the demo's one HTTP/2 connection, confined to its transport's event loop:
/// the socket, the `HTTP2Connection` (client role) and the exchange of every stream in flight.
///
/// Requests wait in `waiting` until the connection is up and the proxy's
/// SETTINGS_MAX_CONCURRENT_STREAMS leaves room (RFC 9113 §5.1.2); each then opens a stream
/// (HEADERS, and DATA when it has a body) and its response is collected until END_STREAM, when
/// its continuation gets it. Every exchange has a deadline. After every input the frames
/// nghttp2 queued go out in one write, and the events sending produced (streams our END_STREAM
/// closed) are handled, as `HTTP2ProxySession.afterInput` does on the proxy's side.
final class DemoHTTP2Connection: StreamConnectionDelegate {
    typealias Completion = CheckedContinuation<DemoHTTPClient.Response, any Error>

    /// One request: waiting for a stream, then its response as it arrives.
    private struct Exchange {
        /// Names the exchange for its deadline timer.
        let serial: UInt64
        let request: DemoRequest
        let completion: Completion
        var deadline: TimerHandle?
        var status: Int?
        var fields = HTTPHeaders()
        var body: [UInt8] = []
    }

    private enum Phase {
        /// No connection yet: the first request opens it.
        case idle
        case connecting
        case open(StreamConnection)
        /// Closed (by us, the proxy or an error): every request fails with this.
        case closed(String)
    }

    /// How long one exchange may take, from its submission to END_STREAM.
    static let exchangeTimeout: Duration = .seconds(15)
    static let connectTimeout: Duration = .seconds(5)

    private let loop: EventLoop
    private let address: SocketAddress
    private let http2: HTTP2Connection
    private var phase = Phase.idle
    /// Submitted exchanges without a stream yet, in order.
    private var waiting: [Exchange] = []
    /// Exchanges with a stream, by stream ID.
    private var open: [Int32: Exchange] = [:]
    /// The proxy sent GOAWAY (RFC 9113 §6.8): no new stream may start on this connection.
    private var goAway: String?
    /// The `written` calls of requests whose streams started since the last write.
    private var startedSinceWrite: [@Sendable () -> Void] = []
    private var nextSerial: UInt64 = 0

    /// A connection to `address` that opens on the first request. Built on any thread, then used
    /// only on `loop` (`LoopBound(handingOff:to:)`).
    init(address: SocketAddress, loop: EventLoop) throws(HTTP2Error) {
        self.loop = loop
        self.address = address
        http2 = try HTTP2Connection(role: .client)
    }

    // MARK: Requests

    /// Sends `request` on a stream of its own; `completion` gets the response or the failure.
    func submit(_ request: DemoRequest, completion: Completion) {
        loop.assertInEventLoop()
        if case .closed(let reason) = phase {
            completion.resume(throwing: DemoHTTPClient.Failure(description: reason))
            return
        }
        nextSerial += 1
        let serial = nextSerial
        let deadline = loop.scheduleTimer(after: Self.exchangeTimeout) { [self] in expire(serial) }
        waiting.append(Exchange(serial: serial, request: request, completion: completion, deadline: deadline))
        if case .idle = phase { connect() }
        pump()
    }

    /// Ends the connection politely: GOAWAY NO_ERROR (RFC 9113 §6.8; we accept no streams, so its
    /// last-stream-id is 0), then close once it is written. What is still in flight fails.
    func close() {
        loop.assertInEventLoop()
        if case .open = phase {
            http2.goAway(code: .noError, lastStreamID: 0, debug: "demo done")
            pump()
        }
        fail(all: "the demo closed its HTTP/2 connection")
    }

    private func connect() {
        phase = .connecting
        StreamConnection.connect(to: [address], id: ConnectionID(0), on: loop, timeout: Self.connectTimeout) {
            [self] result in
            switch result {
            case .success(let socket):
                guard case .connecting = phase else {
                    socket.close()
                    return
                }
                socket.delegate = self
                socket.start()
                phase = .open(socket)
                pump()
            case .failure(let error):
                fail(all: "cannot connect to the proxy at \(address): \(error)")
            }
        }
    }

    /// An exchange got no END_STREAM within `exchangeTimeout`: it fails, and the stream it had
    /// is reset (CANCEL, RFC 9113 §8.7).
    private func expire(_ serial: UInt64) {
        let message = "no complete answer within \(Self.exchangeTimeout)"
        if let position = waiting.firstIndex(where: { $0.serial == serial }) {
            waiting.remove(at: position).completion.resume(throwing: DemoHTTPClient.Failure(description: message))
        } else if let stream = open.first(where: { $0.value.serial == serial })?.key {
            open[stream]?.deadline = nil
            http2.reset(stream: stream, code: .cancel)
            finish(stream: stream, .failure(DemoHTTPClient.Failure(description: "stream \(stream): \(message)")))
            pump()
        }
    }

    // MARK: Moving frames

    /// Opens streams for waiting requests while the proxy allows, writes what nghttp2 queued, and
    /// handles the events that sending produced, until nothing more happens.
    private func pump() {
        guard case .open(let socket) = phase else { return }
        for _ in 0..<8 {
            startWaiting()
            let bytes = http2.takeOutput()
            if !bytes.isEmpty { socket.write(bytes) }
            for written in startedSinceWrite { written() }
            startedSinceWrite = []
            let events = http2.takeEvents()
            if events.isEmpty { break }
            handle(events)
        }
        if http2.isFinished, open.isEmpty, waiting.isEmpty {
            socket.closeAfterFlush()
        }
    }

    private func startWaiting() {
        while !waiting.isEmpty {
            if let goAway {
                let exchange = waiting.removeFirst()
                if let deadline = exchange.deadline { loop.cancelTimer(deadline) }
                exchange.completion.resume(throwing: DemoHTTPClient.Failure(description: goAway))
                continue
            }
            guard http2.canStartRequest else { return }
            let exchange = waiting.removeFirst()
            let request = exchange.request
            var fields = HTTP2Headers.fields(fromHTTP1: request.fields)
            if !request.body.isEmpty { fields.append(HTTP2Header("content-length", String(request.body.count))) }
            let block = HTTP2Headers.requestBlock(
                HTTP2Headers.Request(
                    method: request.method, scheme: "http", authority: "\(address)", path: request.path, fields: fields)
            )
            do {
                let stream = try http2.startRequest(headers: block, endStream: request.body.isEmpty)
                if !request.body.isEmpty { http2.sendData(stream: stream, request.body[...], endStream: true) }
                open[stream] = exchange
                if let written = request.written { startedSinceWrite.append(written) }
            } catch {
                if let deadline = exchange.deadline { loop.cancelTimer(deadline) }
                exchange.completion.resume(throwing: DemoHTTPClient.Failure(description: error.message))
            }
        }
    }

    // MARK: What the proxy sent

    private func handle(_ events: [HTTP2Event]) {
        for event in events {
            switch event {
            case .headers(let stream, let headers, let endStream):
                // 1xx heads are informational (RFC 9113 §8.1); the final one has the status.
                guard let status = HTTP2Headers.status(headers), status >= 200 else { continue }
                open[stream]?.status = status
                open[stream]?.fields = HTTP2Headers.http1Fields(headers)
                if endStream { complete(stream: stream) }
            case .data(let stream, let bytes, let endStream):
                http2.consumed(stream: stream, bytes: bytes.count)
                open[stream]?.body += bytes
                if endStream { complete(stream: stream) }
            case .trailers(let stream, _):
                complete(stream: stream)
            case .streamReset(let stream, let code):
                finish(
                    stream: stream,
                    .failure(DemoHTTPClient.Failure(description: "the proxy reset stream \(stream) (\(code))")))
            case .streamClosed(let stream, let code):
                finish(
                    stream: stream,
                    .failure(DemoHTTPClient.Failure(description: "stream \(stream) closed unanswered (\(code))")))
            case .streamError(let stream, let reason):
                finish(stream: stream, .failure(DemoHTTPClient.Failure(description: "stream \(stream): \(reason)")))
            case .goAway(let lastStreamID, let code, _):
                // Streams above lastStreamID were not processed; nghttp2 closes them for us.
                goAway = "the proxy sent GOAWAY (\(code), last stream \(lastStreamID))"
            case .connectionError(let code, let reason):
                fail(all: "HTTP/2 connection error \(code): \(reason)")
            case .settings, .windowAvailable:
                continue
            }
        }
    }

    private func complete(stream: Int32) {
        guard let exchange = open[stream] else { return }
        guard let status = exchange.status else {
            finish(
                stream: stream,
                .failure(DemoHTTPClient.Failure(description: "stream \(stream) ended without a response head")))
            return
        }
        finish(
            stream: stream,
            .success(DemoHTTPClient.Response(status: status, headers: exchange.fields, body: exchange.body)))
    }

    private func finish(stream: Int32, _ result: Result<DemoHTTPClient.Response, any Error>) {
        guard let exchange = open.removeValue(forKey: stream) else { return }
        if let deadline = exchange.deadline { loop.cancelTimer(deadline) }
        exchange.completion.resume(with: result)
    }

    /// Every exchange fails with `reason`, and so does every later request; the socket closes
    /// once what was written is out.
    private func fail(all reason: String) {
        let previous = phase
        if case .closed = previous {} else { phase = .closed(reason) }
        let exchanges = waiting + open.keys.sorted().map { open[$0]! }
        waiting = []
        open = [:]
        for exchange in exchanges {
            if let deadline = exchange.deadline { loop.cancelTimer(deadline) }
            exchange.completion.resume(throwing: DemoHTTPClient.Failure(description: reason))
        }
        if case .open(let socket) = previous { socket.closeAfterFlush() }
    }

    // MARK: StreamConnectionDelegate

    func streamConnection(_ connection: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        handle(http2.receive(bytes))
        pump()
    }

    func streamConnectionDidReadEOF(_ connection: StreamConnection) {
        fail(all: "the proxy closed the HTTP/2 connection")
    }

    func streamConnectionDidDrainOutbound(_ connection: StreamConnection) {}

    func streamConnection(_ connection: StreamConnection, didCloseWith error: SystemError?) {
        fail(all: error.map { "the HTTP/2 connection failed: \($0)" } ?? "the HTTP/2 connection closed")
    }
}
