import FaultlineCore
import FaultlineHTTP1
import FaultlinePosix
import Synchronization

/// Serves one client connection: decodes requests, answers each through the service, keeps the
/// connection alive between them (RFC 9112 §9.3), and never lets bad input crash the process.
///
/// Theory of operation. Bytes go into an `HTTP1RequestDecoder`; each request's body is collected
/// (up to `maximumBodyBytes`) and, at its end, answered at once, so pipelined requests are
/// answered in order. A request the decoder refuses gets a JSON error with the decoder's status
/// and the connection closes after it: once framing is in doubt, nothing after it can be read as
/// a request. A client that sends faster than it reads makes output pile up; above
/// `outboundHighWatermark` reading pauses and resumes when the output has drained.
///
/// Lives on its connection's loop thread; the loop context keeps it alive until the close.
final class BackendConnection: StreamConnectionDelegate {
    static let outboundHighWatermark = 1 << 20

    private let connection: StreamConnection
    private let service: BackendService
    private unowned let context: BackendLoopContext
    private var decoder = HTTP1RequestDecoder()
    /// The request being received: its head and the body so far.
    private var pending: (head: HTTPRequestHead, body: [UInt8])?
    /// Set once the connection is to close after the output already written.
    private var closing = false

    init(connection: StreamConnection, service: BackendService, context: BackendLoopContext) {
        self.connection = connection
        self.service = service
        self.context = context
    }

    /// Begins reading. On the connection's loop thread, once.
    func start() {
        connection.delegate = self
        connection.start()
    }

    /// Closes at once, dropping unsent output (the backend is stopping).
    func close() {
        connection.close()
    }

    // MARK: - StreamConnectionDelegate

    func streamConnection(_ connection: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        decoder.receive(bytes)
        serve()
    }

    func streamConnectionDidReadEOF(_ connection: StreamConnection) {
        decoder.receiveEOF()
        serve()
        // The client will send nothing more; everything it sent has been answered.
        finish()
    }

    func streamConnectionDidDrainOutbound(_ connection: StreamConnection) {
        guard connection.isReadingPaused, !closing else { return }
        connection.setReadingPaused(false)
        serve()
    }

    func streamConnection(_ connection: StreamConnection, didCloseWith error: SystemError?) {
        context.remove(connection.id)
    }

    // MARK: - Serving

    /// Answers every complete request buffered so far.
    private func serve() {
        let limit = service.configuration.maximumBodyBytes
        while !closing {
            if connection.outboundBufferedBytes > Self.outboundHighWatermark {
                connection.setReadingPaused(true)
                service.backpressurePauses.add(1, ordering: .relaxed)
                return
            }
            let event: HTTP1RequestEvent?
            do throws(HTTP1Error) {
                event = try decoder.nextEvent()
            } catch {
                refuse(.error(error.status, "malformed_request", "\(error.code): \(error.description)"))
                return
            }
            guard let event else { return }
            switch event {
            case .head(let head):
                if case .contentLength(let length) = decoder.framing, length > Int64(limit) {
                    refuse(Self.tooLarge(limit))
                    return
                }
                // RFC 9110 §10.1.1: tell a client waiting before it sends the body to go on.
                if head.version == .http1_1, decoder.framing != .none,
                    head.headers.containsToken("100-continue", inField: "Expect")
                {
                    connection.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
                }
                pending = (head, [])
            case .body(let bytes):
                guard pending != nil else { preconditionFailure("request body before its head") }
                pending!.body.append(contentsOf: bytes)
                if pending!.body.count > limit {
                    refuse(Self.tooLarge(limit))
                    return
                }
            case .end:
                guard let (head, body) = pending else { preconditionFailure("request end before its head") }
                pending = nil
                let response = service.respond(to: head, body: body)
                // After a CONNECT the decoder reads no more requests: close (RFC 9110 §9.3.6).
                let keepAlive = Self.keepsAlive(head) && decoder.framing != .tunnel
                send(response, answering: head, keepAlive: keepAlive)
                if !keepAlive { finish() }
            }
        }
    }

    /// Answers `response` and closes: the request could not be read to its end.
    private func refuse(_ response: BackendResponse) {
        pending = nil
        send(response, answering: nil, keepAlive: false)
        finish()
    }

    private func finish() {
        guard !closing else { return }
        closing = true
        connection.closeAfterFlush()
    }

    private func send(_ response: BackendResponse, answering request: HTTPRequestHead?, keepAlive: Bool) {
        var head = HTTPResponseHead(status: response.status, reason: response.reason, headers: response.headers)
        // RFC 9110 §8.6: no Content-Length in a 204; a HEAD answer announces the GET body's length.
        if response.status != 204 && response.status != 304 {
            head.headers.add(name: "Content-Length", value: String(response.body.count))
        }
        if !keepAlive {
            head.headers.add(name: "Connection", value: "close")
        } else if request?.version == .http1_0 {
            head.headers.add(name: "Connection", value: "keep-alive")
        }
        var bytes: [UInt8] = []
        HTTP1Encoder.encode(head, into: &bytes)
        if request?.method != "HEAD" { bytes.append(contentsOf: response.body) }
        connection.write(bytes)
    }

    /// RFC 9112 §9.3: HTTP/1.1 stays open unless `Connection: close`; HTTP/1.0 only with
    /// `Connection: keep-alive`.
    private static func keepsAlive(_ head: HTTPRequestHead) -> Bool {
        if head.headers.containsToken("close", inField: "Connection") { return false }
        if head.version == .http1_1 { return true }
        return head.version == .http1_0 && head.headers.containsToken("keep-alive", inField: "Connection")
    }

    private static func tooLarge(_ limit: Int) -> BackendResponse {
        .error(413, "request_too_large", "request bodies are limited to \(limit) bytes")
    }
}
