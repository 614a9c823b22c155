import FaultlineCore
import FaultlinePosix
import FaultlineTLS

/// TLS over a blocking socket: FaultlineTLS's sans-I/O `TLSConnection`, with the bytes moved
/// here. The handshake runs in `init` and offers only `http/1.1` (ALPN, RFC 7301): the replay
/// speaks HTTP/1.1.
final class TLSReplayTransport: ReplayTransport {
    private let socket: BlockingConnection
    private let tls: TLSConnection
    private var plaintext: [UInt8] = []
    /// The peer sent `close_notify`, closed the socket, or the connection failed.
    private var ended = false

    init(socket: BlockingConnection, context: TLSClientContext, serverName: String, deadline: MonotonicInstant)
        throws(ReplayTransportError)
    {
        self.socket = socket
        do {
            tls = try TLSConnection.client(context: context, serverName: serverName, alpn: ["http/1.1"])
        } catch {
            throw ReplayTransportError("TLS: \(error)")
        }
        try send(ciphertext: tls.takeCiphertext(), deadline: deadline)
        while !tls.isHandshakeComplete {
            guard !ended else { throw ReplayTransportError("TLS handshake: the server closed the connection") }
            try absorb(try readSocket(deadline: deadline), deadline: deadline)
        }
    }

    func send(_ bytes: [UInt8], deadline: MonotonicInstant) throws(ReplayTransportError) {
        tls.writePlaintext(bytes)
        try send(ciphertext: tls.takeCiphertext(), deadline: deadline)
    }

    func read(deadline: MonotonicInstant) throws(ReplayTransportError) -> [UInt8] {
        while plaintext.isEmpty, !ended { try absorb(try readSocket(deadline: deadline), deadline: deadline) }
        defer { plaintext = [] }
        return plaintext
    }

    func peerHasClosed() -> Bool {
        guard !ended, tls.canCarryData else { return true }
        // Records without data (TLS 1.3 session tickets) may have arrived while it was idle.
        do {
            try absorb(try readSocket(deadline: .now()), deadline: MonotonicInstant.now().advanced(by: .seconds(1)))
        } catch {
            if !error.timedOut { return true }
        }
        return ended || !plaintext.isEmpty || !tls.canCarryData
    }

    func close() {
        if tls.canCarryData {
            tls.close()
            try? socket.sendAll(tls.takeCiphertext(), deadline: MonotonicInstant.now().advanced(by: .milliseconds(100)))
        }
        socket.close()
    }

    private func readSocket(deadline: MonotonicInstant) throws(ReplayTransportError) -> [UInt8] {
        do { return try socket.read(deadline: deadline) } catch { throw ReplayTransportError(error) }
    }

    private func send(ciphertext: [UInt8], deadline: MonotonicInstant) throws(ReplayTransportError) {
        guard !ciphertext.isEmpty else { return }
        do { try socket.sendAll(ciphertext, deadline: deadline) } catch { throw ReplayTransportError(error) }
    }

    /// Hands ciphertext (empty: the socket's EOF) to TLS, keeps the plaintext, and sends what TLS
    /// answers (handshake records, or the alert that says why it failed).
    private func absorb(_ bytes: [UInt8], deadline: MonotonicInstant) throws(ReplayTransportError) {
        if bytes.isEmpty {
            tls.receiveEOF()
            ended = true
        } else {
            tls.receiveCiphertext(bytes)
        }
        var failure: TLSError?
        for event in tls.advance() {
            switch event {
            case .handshakeCompleted: break
            case .plaintext(let data): plaintext += data
            case .closeNotify: ended = true
            case .failed(let error): failure = error
            }
        }
        guard let failure else {
            try send(ciphertext: tls.takeCiphertext(), deadline: deadline)
            return
        }
        ended = true
        try? send(ciphertext: tls.takeCiphertext(), deadline: deadline)
        // After the handshake an EOF without close_notify is a plain EOF, as in the proxy:
        // HTTP/1.1's framing tells a complete answer from a cut one.
        if bytes.isEmpty, tls.isHandshakeComplete { return }
        throw ReplayTransportError("TLS: \(failure)")
    }
}
