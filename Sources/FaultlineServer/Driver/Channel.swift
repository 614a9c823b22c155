import FaultlineCore
import FaultlinePosix
import FaultlineProxy
import FaultlineTLS

/// One side of a proxied exchange: a socket, and the TLS session over it when that side speaks
/// TLS (an intercepted client, an `https` upstream). Callers write and read plaintext; with TLS
/// the ciphertext moves between the `TLSConnection`'s memory BIOs and the socket here.
///
/// A value holding two references: copies share the socket and the TLS state. Confined to the
/// socket's event loop.
struct Channel {
    let socket: StreamConnection
    /// The TLS session over `socket`; nil for plain TCP.
    var tls: TLSConnection?
    /// An upstream connection that negotiated `h2`: its HTTP/2 session, which the next flow on
    /// the connection continues (kept in the pool with the socket).
    var http2: HTTP2UpstreamConnection?

    init(socket: StreamConnection, tls: TLSConnection? = nil) {
        self.socket = socket
        self.tls = tls
    }

    var id: ConnectionID { socket.id }

    /// True while the socket is open and, with TLS, the session can still carry data (no
    /// `close_notify` either way, no failure): what a pooled connection must be to be reused.
    var isUsable: Bool { socket.isOpen && (tls?.canCarryData ?? true) }

    /// Sends plaintext (encrypted first when TLS is on).
    func write(_ bytes: [UInt8]) {
        guard let tls else {
            socket.write(bytes)
            return
        }
        tls.writePlaintext(bytes)
        flush()
    }

    /// Hands ciphertext read from the socket to TLS and returns what came of it. TLS only.
    func receive(_ bytes: UnsafeRawBufferPointer) -> [TLSEvent] {
        guard let tls else { preconditionFailure("Channel.receive on a plain connection") }
        tls.receiveCiphertext(bytes)
        return advance()
    }

    /// Tells TLS the socket reached end of file and returns what came of it. TLS only.
    func receiveEOF() -> [TLSEvent] {
        guard let tls else { preconditionFailure("Channel.receiveEOF on a plain connection") }
        tls.receiveEOF()
        return advance()
    }

    /// Runs TLS on what it holds (the handshake, decryption) and sends what it produced.
    func advance() -> [TLSEvent] {
        guard let tls else { return [] }
        let events = tls.advance()
        flush()
        return events
    }

    /// Writes whatever ciphertext TLS has waiting (handshake records, data, alerts).
    func flush() {
        guard let tls, tls.hasPendingCiphertext else { return }
        socket.write(tls.takeCiphertext())
    }

    /// Sends FIN after queued bytes; with TLS, `close_notify` first (RFC 8446 §6.1).
    func shutdownWrite() {
        sendCloseNotify()
        socket.shutdownWrite()
    }

    /// Closes after queued bytes are written; with TLS, `close_notify` first.
    func closeAfterFlush() {
        sendCloseNotify()
        socket.closeAfterFlush()
    }

    private func sendCloseNotify() {
        guard let tls else { return }
        tls.close()
        flush()
    }
}
