import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlinePosix
import FaultlineProxy
import FaultlineTLS
import FaultlineTrace

/// Runs the TLS handshake of a new connection to an `https` upstream, then hands the connection
/// over: its completion gets the channel (socket started, TLS established) or the failure to
/// answer the client with (502; 504 when the handshake timed out).
///
/// While it runs it is the socket's delegate; `LoopContext` keeps it alive until it completes.
/// Bytes that arrive with the server's last handshake flight (TLS 1.3 session tickets) are
/// consumed by OpenSSL here; application data before our first request would be a protocol
/// violation for HTTP/1.1 and fails the handshake.
final class UpstreamHandshake: StreamConnectionDelegate {
    typealias Completion = (Result<Channel, UpstreamFailure>) -> Void

    private let channel: Channel
    private let endpoint: UpstreamEndpoint
    private let context: LoopContext
    private var completion: Completion?
    private var timer: TimerHandle?

    init(channel: Channel, endpoint: UpstreamEndpoint, context: LoopContext, completion: @escaping Completion) {
        self.channel = channel
        self.endpoint = endpoint
        self.context = context
        self.completion = completion
    }

    /// Sends the ClientHello and arms the handshake deadline.
    func start(timeout: Duration) {
        channel.socket.delegate = self
        channel.socket.start()
        channel.flush()
        timer = context.loop.scheduleTimer(after: timeout) { [weak self] in
            guard let self else { return }
            self.timer = nil
            self.fail(
                code: "tls-handshake-timeout", status: 504,
                message: "\(self.endpoint.hostHeaderValue) did not complete the TLS handshake in \(timeout)")
        }
    }

    private func handle(_ events: [TLSEvent]) {
        for event in events {
            switch event {
            case .handshakeCompleted(let info):
                guard let tls = channel.tls else { return }
                context.trace.record(
                    .tlsHandshake, connection: channel.id,
                    TLSTrace.handshake(
                        side: .upstream, info, connection: tls,
                        verifying: context.configuration.tls?.clientContext.verify ?? false)
                )
            case .plaintext, .closeNotify:
                fail(
                    code: "upstream-protocol-error", status: 502,
                    message: "\(endpoint.hostHeaderValue) sent data or closed before the first request")
                return
            case .failed(let error):
                let failure = TLSTrace.upstreamFailure(error, target: endpoint.hostHeaderValue)
                fail(code: failure.code, status: failure.status, message: failure.description)
                return
            }
        }
        if channel.tls?.isHandshakeComplete == true { succeed() }
    }

    private func succeed() {
        guard let completion else { return }
        finish()
        channel.socket.delegate = nil
        completion(.success(channel))
    }

    private func fail(code: String, status: Int, message: String) {
        guard let completion else { return }
        finish()
        context.trace.record(
            .tlsFailed, connection: channel.id, TLSTrace.failure(side: .upstream, code: code, message: message))
        channel.socket.delegate = nil
        channel.flush()  // the alert that tells the server why, if TLS produced one
        channel.socket.closeAfterFlush()
        completion(.failure(UpstreamFailure(code: code, status: status, description: message)))
    }

    private func finish() {
        completion = nil
        if let timer { context.loop.cancelTimer(timer) }
        timer = nil
        context.handshakeFinished(self)
    }

    // MARK: StreamConnectionDelegate

    func streamConnection(_ connection: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        handle(channel.receive(bytes))
    }

    func streamConnectionDidReadEOF(_ connection: StreamConnection) {
        handle(channel.receiveEOF())
        fail(
            code: "upstream-closed", status: 502, message: "\(endpoint.hostHeaderValue) closed during the TLS handshake"
        )
    }

    func streamConnectionDidDrainOutbound(_ connection: StreamConnection) {}

    func streamConnection(_ connection: StreamConnection, didCloseWith error: SystemError?) {
        fail(
            code: "upstream-closed", status: 502,
            message: "\(endpoint.hostHeaderValue) closed during the TLS handshake\(error.map { ": \($0)" } ?? "")")
    }
}
