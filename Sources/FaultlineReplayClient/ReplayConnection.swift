import FaultlineCore
import FaultlineHTTP1
import FaultlinePosix
import FaultlineTLS

/// One recorded connection's requests on one live connection, in order: each sent whole, its
/// answer read whole (FaultlineHTTP1's decoder), the connection kept for the next request while
/// the server keeps it alive, and opened again when the server has closed it.
///
/// A kept-alive connection the server closed while it sat idle is found before it is used
/// (`ReplayTransport.peerHasClosed`); one that closes right as a request without a body goes
/// out, before any answer byte, is replaced once by a fresh one (RFC 9112 §9.3.1), as the
/// proxy's upstream does.
final class ReplayConnection {
    /// Where and how to connect.
    struct Destination: Sendable {
        /// The target's addresses, tried in order.
        var addresses: [SocketAddress]
        /// The host name for TLS (SNI and the certificate check); nil for plain HTTP.
        var tlsServerName: String?
        var tls: TLSClientContext?
    }

    private let destination: Destination
    private var transport: (any ReplayTransport)?

    init(destination: Destination) {
        self.destination = destination
    }

    /// Sends `request` and reads its answer, all before `deadline`.
    func exchange(_ request: ReplayRequest, deadline: MonotonicInstant) throws(ReplayTransportError) -> LiveResponse {
        if let open = transport, open.peerHasClosed() { close() }
        let reused = transport != nil
        do {
            return try attempt(request, deadline: deadline)
        } catch {
            close()
            guard reused, !error.receivedBytes, request.body.isEmpty, !error.error.timedOut else { throw error.error }
        }
        do {
            return try attempt(request, deadline: deadline)
        } catch {
            close()
            throw error.error
        }
    }

    func close() {
        transport?.close()
        transport = nil
    }

    private struct AttemptFailure: Error {
        let error: ReplayTransportError
        /// Whether any byte of an answer came back.
        let receivedBytes: Bool
    }

    private func attempt(_ request: ReplayRequest, deadline: MonotonicInstant) throws(AttemptFailure) -> LiveResponse {
        let transport: any ReplayTransport
        if let open = self.transport {
            transport = open
        } else {
            do { transport = try connect(deadline: deadline) } catch {
                throw AttemptFailure(error: error, receivedBytes: false)
            }
            self.transport = transport
        }
        var decoder = HTTP1ResponseDecoder()
        decoder.expectResponse(toMethod: request.head.method)
        var receivedBytes = false
        do throws(ReplayTransportError) {
            try transport.send(request.encoded, deadline: deadline)
            var head: HTTPResponseHead?
            var body: [UInt8] = []
            var length = 0
            while true {
                while let event = try nextEvent(&decoder) {
                    switch event {
                    case .interim: continue
                    case .head(let received): head = received
                    case .body(let bytes):
                        length += bytes.count
                        if body.count < LiveResponse.keptBodyLimit {
                            body += bytes.prefix(LiveResponse.keptBodyLimit - body.count)
                        }
                    case .end:
                        guard let head else { throw ReplayTransportError("an answer without a head") }
                        let reusable =
                            head.keepsConnectionOpen && head.status != 101 && decoder.framing != .closeDelimited
                            && !decoder.sawEOF && decoder.bufferedByteCount == 0
                        if !reusable { close() }
                        return LiveResponse(status: head.status, headers: head.headers, body: body, bodyLength: length)
                    }
                }
                let bytes = try transport.read(deadline: deadline)
                if bytes.isEmpty {
                    // The decoder reports a cut answer at EOF; this guards against reading EOF twice.
                    guard !decoder.sawEOF else {
                        throw ReplayTransportError("the server closed the connection mid-answer")
                    }
                    decoder.receiveEOF()
                    if decoder.isAtMessageBoundary, head == nil {
                        throw ReplayTransportError("the server closed the connection without answering")
                    }
                } else {
                    receivedBytes = true
                    decoder.receive(bytes)
                }
            }
        } catch {
            throw AttemptFailure(error: error, receivedBytes: receivedBytes)
        }
    }

    private func nextEvent(_ decoder: inout HTTP1ResponseDecoder) throws(ReplayTransportError) -> HTTP1ResponseEvent? {
        do { return try decoder.nextEvent() } catch { throw ReplayTransportError("a malformed answer: \(error)") }
    }

    /// A new connection to the first address that takes it, with TLS when the target is https.
    private func connect(deadline: MonotonicInstant) throws(ReplayTransportError) -> any ReplayTransport {
        var lastError = ReplayTransportError("the target has no address")
        for address in destination.addresses {
            let socket: BlockingConnection
            do {
                socket = try BlockingConnection(
                    connectingTo: address, timeout: MonotonicInstant.now().duration(to: deadline))
            } catch {
                lastError = ReplayTransportError(error, at: "\(address)")
                continue
            }
            guard let context = destination.tls, let serverName = destination.tlsServerName else {
                return PlainReplayTransport(socket: socket)
            }
            return try TLSReplayTransport(socket: socket, context: context, serverName: serverName, deadline: deadline)
        }
        throw lastError
    }
}
