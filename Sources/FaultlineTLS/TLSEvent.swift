/// What ``TLSConnection/advance()`` found, in order.
public enum TLSEvent: Sendable, Equatable {
    /// The handshake finished; from now on plaintext flows both ways. Comes once per connection,
    /// before any `.plaintext`.
    case handshakeCompleted(TLSSessionInfo)
    /// Decrypted application data from the peer (everything available in this `advance`).
    case plaintext([UInt8])
    /// The peer sent `close_notify` (RFC 8446 §6.1): it will send no more data. We may still
    /// write; call ``TLSConnection/close()`` to answer with our own `close_notify`.
    case closeNotify
    /// The connection failed and is finished. Send what ``TLSConnection/takeCiphertext()`` returns
    /// (usually the alert that tells the peer why), then close the socket.
    case failed(TLSError)
}

/// What a completed handshake negotiated, for the trace. Holds no key material.
public struct TLSSessionInfo: Sendable, Equatable {
    /// Server side: the SNI name the client sent (nil if none). Client side: the SNI name we sent
    /// (nil when we dialled an IP address, which SNI cannot carry, RFC 6066 §3).
    public var serverName: String?
    /// The negotiated application protocol (RFC 7301), e.g. "http/1.1" or "h2"; nil if none.
    public var alpn: String?
    /// OpenSSL's name for the version, e.g. "TLSv1.3".
    public var protocolVersion: String
    /// OpenSSL's name for the cipher suite, e.g. "TLS_AES_256_GCM_SHA384".
    public var cipher: String
    /// Client side: the subject of the server's leaf certificate (RFC 2253). Server side: nil.
    public var peerCertificateSubject: String?
    /// Whether an earlier session was resumed (no certificate exchange took place).
    public var sessionResumed: Bool
    /// Client side with verification off: why the server's certificate would have failed
    /// verification (nil if it would have passed). Always nil when verification is on (a failure
    /// fails the handshake) and on the server side.
    public var peerVerificationError: String?

    public init(
        serverName: String?, alpn: String?, protocolVersion: String, cipher: String,
        peerCertificateSubject: String?, sessionResumed: Bool = false, peerVerificationError: String? = nil
    ) {
        self.serverName = serverName
        self.alpn = alpn
        self.protocolVersion = protocolVersion
        self.cipher = cipher
        self.peerCertificateSubject = peerCertificateSubject
        self.sessionResumed = sessionResumed
        self.peerVerificationError = peerVerificationError
    }
}
