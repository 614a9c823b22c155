import COpenSSL

/// A sans-I/O TLS connection (client or server side) over two OpenSSL memory BIOs. It never
/// touches a socket: the caller moves bytes.
///
/// Theory of operation. `inbound` is the memory BIO OpenSSL reads ciphertext from and `outbound`
/// the one it writes ciphertext to. The caller's loop, on one thread:
///
/// 1. socket bytes → ``receiveCiphertext(_:)`` (appends to `inbound`); socket EOF → ``receiveEOF()``;
/// 2. ``advance()`` runs the handshake (`SSL_do_handshake`) until it completes, then decrypts
///    (`SSL_read`) until `inbound` is empty, and returns what happened as ``TLSEvent``s;
/// 3. plaintext to send → ``writePlaintext(_:)`` (`SSL_write`; held back until the handshake
///    completes, then sent in order);
/// 4. after any of these, ``takeCiphertext()`` empties `outbound`: handshake records, encrypted
///    data, alerts; write it to the socket.
///
/// States: `handshaking` → `established` → (`failed`); `handshaking` → `failed` or `abandoned`
/// (``close()`` before the handshake finished). `close_notify` in each direction is a flag on
/// `established` (TLS allows half-closure, RFC 8446 §6.1). Once failed, the connection does
/// nothing more; a fatal alert may still wait in `outbound`.
///
/// Callbacks: OpenSSL calls the server-name, ALPN and verify callbacks from inside
/// `SSL_do_handshake`; they find this object through the `SSL`'s ex-data slot (an unretained
/// pointer, valid because the `SSL` is freed in our `deinit`) and record what they decided.
///
/// Not thread-safe: one event-loop thread owns it.
public final class TLSConnection {
    private enum State {
        case handshaking
        case established
        case failed
        case abandoned
    }

    enum Role {
        case server(TLSServerContext, fallbackHost: String)
        case client(TLSClientContext, serverName: String?, expected: HostIdentity)
    }

    /// `SSL *`, owned; it owns both BIOs.
    let ssl: OpaquePointer
    private let inbound: OpaquePointer
    private let outbound: OpaquePointer
    let role: Role
    private var state = State.handshaking
    private var pendingPlaintext: [UInt8] = []
    private var pendingFailure: TLSError?
    private var receivedEOF = false
    private var receivedCloseNotify = false
    private var sentCloseNotify = false
    private var readBuffer = [UInt8](repeating: 0, count: 16_384)

    // Recorded by the callbacks while the handshake runs.
    var callbackFailure: TLSError?
    var verificationFailure: VerificationFailure?
    var offeredALPN: [String] = []

    /// Server side: the host whose certificate was presented (canonical spelling); nil before the
    /// ClientHello was read, and on the client side.
    public internal(set) var certificateHost: String?
    /// Server side: whether that certificate was minted for this connection (false: it came from
    /// the CA's cache). For the trace, and for telling mint cost apart from handshake cost.
    public internal(set) var certificateWasMinted = false
    /// What the handshake negotiated; nil until ``TLSEvent/handshakeCompleted(_:)``.
    public private(set) var sessionInfo: TLSSessionInfo?

    /// True once the handshake completed (and stays true after a later close or failure).
    public var isHandshakeComplete: Bool { sessionInfo != nil }

    /// True if OpenSSL has ciphertext waiting for ``takeCiphertext()``.
    public var hasPendingCiphertext: Bool { BIO_ctrl_pending(outbound) > 0 }

    /// True while application data can still flow both ways: the handshake completed, neither
    /// side sent `close_notify`, nothing failed. A pooled connection must be this to be reused.
    public var canCarryData: Bool {
        guard case .established = state else { return false }
        return !receivedCloseNotify && !sentCloseNotify && pendingFailure == nil
    }

    private init(context: OpaquePointer, role: Role) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let ssl = SSL_new(context) else {
            throw OpenSSLErrorQueue.error(TLSError.internalFailure, "Creating a TLS connection failed")
        }
        let inbound = BIO_new(BIO_s_mem())
        let outbound = BIO_new(BIO_s_mem())
        guard let inbound, let outbound else {
            BIO_free(inbound)
            BIO_free(outbound)
            SSL_free(ssl)
            throw OpenSSLErrorQueue.error(TLSError.internalFailure, "Creating memory BIOs failed")
        }
        // An empty inbound BIO means "no bytes yet" (retry) until the socket reaches EOF.
        _ = faultline_BIO_set_mem_eof_return(inbound, -1)
        SSL_set_bio(ssl, inbound, outbound)
        self.ssl = ssl
        self.inbound = inbound
        self.outbound = outbound
        self.role = role
        SSL_set_ex_data(ssl, connectionExDataIndex, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        SSL_free(ssl)
    }

    /// The connection whose `SSL *` this is, for C callbacks.
    static func owner(of ssl: OpaquePointer) -> TLSConnection? {
        guard let pointer = SSL_get_ex_data(ssl, connectionExDataIndex) else { return nil }
        return Unmanaged<TLSConnection>.fromOpaque(pointer).takeUnretainedValue()
    }

    // MARK: Making connections

    /// The server side of an intercepted connection: feed it the client's bytes, starting with the
    /// ClientHello. The certificate is the leaf for the client's SNI name, or for `fallbackHost`
    /// (the CONNECT target) when the client sends no valid SNI.
    public static func server(context: TLSServerContext, fallbackHost: String) throws(TLSError) -> TLSConnection {
        let connection = try TLSConnection(context: context.context, role: .server(context, fallbackHost: fallbackHost))
        SSL_set_accept_state(connection.ssl)
        return connection
    }

    /// The client side of an upstream connection to `serverName` (a DNS name, or an IP literal).
    /// Sends SNI for names (not for addresses, RFC 6066 §3), offers `alpn` (none if empty), and,
    /// when the context verifies, checks that the certificate is valid for that name or address.
    /// The ClientHello is ready in ``takeCiphertext()`` as soon as this returns.
    /// Throws `invalid-host` or `invalid-alpn` for arguments OpenSSL cannot send.
    public static func client(context: TLSClientContext, serverName: String, alpn: [String]) throws(TLSError)
        -> TLSConnection
    {
        let expected = try HostIdentity(serverName)
        var sniName: String?
        if case .dnsName(let name) = expected { sniName = name }
        let connection = try TLSConnection(
            context: context.context, role: .client(context, serverName: sniName, expected: expected))
        try connection.configureClient(expected: expected, alpn: alpn)
        SSL_set_connect_state(connection.ssl)
        // Writes the ClientHello; with no reply yet this can only want to read.
        OpenSSLErrorQueue.clear()
        let result = SSL_do_handshake(connection.ssl)
        let error = SSL_get_error(connection.ssl, result)
        guard error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE else {
            throw OpenSSLErrorQueue.error(TLSError.internalFailure, "Starting the TLS handshake failed")
        }
        return connection
    }

    private func configureClient(expected: HostIdentity, alpn: [String]) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        switch expected {
        case .dnsName(let name):
            guard faultline_SSL_set_tlsext_host_name(ssl, name) == 1, SSL_set1_host(ssl, name) == 1 else {
                throw OpenSSLErrorQueue.error(TLSError.invalidHost, "Setting the server name \(name) failed")
            }
            // "*.example.com" matches "a.example.com", never "ab*.example.com" patterns (RFC 6125 §6.4.3).
            X509_VERIFY_PARAM_set_hostflags(SSL_get0_param(ssl), UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
        case .ipAddress(let text, _):
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), text) == 1 else {
                throw OpenSSLErrorQueue.error(TLSError.invalidHost, "Setting the server address \(text) failed")
            }
        }
        if !alpn.isEmpty {
            let wire = try ALPN.wire(alpn)
            // Unlike most of OpenSSL, this returns 0 on success.
            guard SSL_set_alpn_protos(ssl, wire, UInt32(wire.count)) == 0 else {
                throw OpenSSLErrorQueue.error(TLSError.invalidALPN, "Setting the ALPN list failed")
            }
        }
    }

    // MARK: Bytes in

    /// Hands over ciphertext read from the socket. Call ``advance()`` afterwards.
    public func receiveCiphertext(_ bytes: UnsafeRawBufferPointer) {
        precondition(!receivedEOF, "TLSConnection: ciphertext received after receiveEOF()")
        var offset = 0
        while offset < bytes.count {
            let chunk = min(bytes.count - offset, Int(Int32.max))
            let written = BIO_write(inbound, bytes.baseAddress! + offset, Int32(chunk))
            precondition(written == chunk, "TLSConnection: a memory BIO refused bytes (out of memory)")
            offset += chunk
        }
    }

    /// Hands over ciphertext read from the socket. Call ``advance()`` afterwards.
    public func receiveCiphertext(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { receiveCiphertext($0) }
    }

    /// Tells the connection the socket reached end of file. Call ``advance()`` afterwards: a peer
    /// that closed without `close_notify` yields `unexpected-eof` (or `handshake-interrupted`).
    public func receiveEOF() {
        receivedEOF = true
        _ = faultline_BIO_set_mem_eof_return(inbound, 0)
    }

    // MARK: Driving

    /// Runs the handshake and decrypts whatever ciphertext has arrived. Call after
    /// ``receiveCiphertext(_:)`` or ``receiveEOF()`` (and once after making a server connection
    /// is harmless). Returns the events in order; empty when more bytes are needed. Always call
    /// ``takeCiphertext()`` afterwards: handshake progress produces bytes to send.
    public func advance() -> [TLSEvent] {
        var events: [TLSEvent] = []
        if let failure = pendingFailure {
            pendingFailure = nil
            state = .failed
            return [.failed(failure)]
        }
        switch state {
        case .failed, .abandoned:
            return []
        case .handshaking:
            OpenSSLErrorQueue.clear()
            let result = SSL_do_handshake(ssl)
            guard result == 1 else {
                let error = SSL_get_error(ssl, result)
                if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return [] }
                state = .failed
                return [.failed(failure(sslError: error, duringHandshake: true))]
            }
            state = .established
            let info = makeSessionInfo()
            sessionInfo = info
            events.append(.handshakeCompleted(info))
            if !pendingPlaintext.isEmpty {
                let held = pendingPlaintext
                pendingPlaintext = []
                encrypt(held)
                if let failure = pendingFailure {
                    pendingFailure = nil
                    state = .failed
                    events.append(.failed(failure))
                    return events
                }
            }
        case .established:
            break
        }
        decryptAvailable(into: &events)
        return events
    }

    /// Reads every record `inbound` holds: plaintext, then `close_notify` or the failure.
    private func decryptAvailable(into events: inout [TLSEvent]) {
        guard !receivedCloseNotify else { return }
        var plaintext: [UInt8] = []
        let ending = readRecords(into: &plaintext)
        if !plaintext.isEmpty { events.append(.plaintext(plaintext)) }
        if let ending { events.append(ending) }
    }

    /// `SSL_read` until it wants more bytes; returns the event that ended reading, if any.
    private func readRecords(into plaintext: inout [UInt8]) -> TLSEvent? {
        while true {
            OpenSSLErrorQueue.clear()
            let count = readBuffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                plaintext.append(contentsOf: readBuffer[0..<Int(count)])
                continue
            }
            let error = SSL_get_error(ssl, count)
            switch error {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return nil
            case SSL_ERROR_ZERO_RETURN:
                receivedCloseNotify = true
                return .closeNotify
            default:
                state = .failed
                return .failed(failure(sslError: error, duringHandshake: false))
            }
        }
    }

    // MARK: Bytes out

    /// Queues plaintext for the peer. Before the handshake completes it is held and sent right
    /// after; after ``close()`` or a failure it is dropped. Call ``takeCiphertext()`` afterwards.
    /// If OpenSSL refuses the write, the failure comes out of the next ``advance()``.
    public func writePlaintext(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        switch state {
        case .handshaking:
            pendingPlaintext.append(contentsOf: bytes)
        case .established where !sentCloseNotify:
            encrypt(bytes)
        case .established, .failed, .abandoned:
            break
        }
    }

    private func encrypt(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, pendingFailure == nil {
                let chunk = min(buffer.count - offset, 1 << 30)
                OpenSSLErrorQueue.clear()
                let written = SSL_write(ssl, buffer.baseAddress! + offset, Int32(chunk))
                if written > 0 {
                    offset += Int(written)
                } else {
                    pendingFailure = failure(sslError: SSL_get_error(ssl, written), duringHandshake: false)
                }
            }
        }
    }

    /// Everything OpenSSL wants sent now: handshake records, encrypted data, alerts. Empty if
    /// nothing is waiting. Call after every other method.
    public func takeCiphertext() -> [UInt8] {
        X509Text.drain(outbound)
    }

    /// Starts closing: queues `close_notify` (RFC 8446 §6.1) for ``takeCiphertext()``. We send no
    /// more data afterwards, but still read what the peer sends until its own `close_notify`.
    /// Before the handshake completes there is nothing to close cleanly: the connection is
    /// abandoned (held plaintext dropped) and the caller just closes the socket.
    public func close() {
        switch state {
        case .established where !sentCloseNotify:
            sentCloseNotify = true
            OpenSSLErrorQueue.clear()
            _ = SSL_shutdown(ssl)
            OpenSSLErrorQueue.clear()
        case .handshaking:
            state = .abandoned
            pendingPlaintext = []
        case .established, .failed, .abandoned:
            break
        }
    }

    // MARK: Session info

    private func makeSessionInfo() -> TLSSessionInfo {
        var alpnData: UnsafePointer<UInt8>?
        var alpnLength: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &alpnData, &alpnLength)
        let alpn = alpnData.map {
            String(decoding: UnsafeBufferPointer(start: $0, count: Int(alpnLength)), as: UTF8.self)
        }
        let cipher = SSL_get_current_cipher(ssl).flatMap { SSL_CIPHER_get_name($0) }.map { String(cString: $0) } ?? ""
        let version = String(cString: SSL_get_version(ssl))
        switch role {
        case .server:
            let name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name).map { String(cString: $0) }
            return TLSSessionInfo(
                serverName: name, alpn: alpn, protocolVersion: version, cipher: cipher, peerCertificateSubject: nil,
                sessionResumed: SSL_session_reused(ssl) == 1)
        case .client(let context, let serverName, _):
            let subject = SSL_get0_peer_certificate(ssl).map { X509Text.subject($0) }
            return TLSSessionInfo(
                serverName: serverName, alpn: alpn, protocolVersion: version, cipher: cipher,
                peerCertificateSubject: subject, sessionResumed: SSL_session_reused(ssl) == 1,
                peerVerificationError: context.verify ? nil : verificationFailure?.summary)
        }
    }
}

@available(*, unavailable)
extension TLSConnection: Sendable {}

/// The ex-data slot where each `SSL *` keeps its `TLSConnection` (a lazily initialised global,
/// so OpenSSL hands out the index once per process).
private let connectionExDataIndex = faultline_SSL_get_ex_new_index()
