/// A TLS failure: a peer that misbehaved or refused us, a certificate that did not verify, or a
/// CA file that could not be used.
///
/// Errors are values with a stable `code` for the trace and a `description` a person can act on.
/// Descriptions may quote OpenSSL's reason strings, certificate subjects, host names and file
/// paths; they never contain key material. Modelled on swift-nio's `NIOHTTPDecoderError`: a
/// struct, so new codes can be added without breaking callers' switches. Compare `code`s.
public struct TLSError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable machine identifier, e.g. `"client-rejected-certificate"`. The codes in use are the
    /// `static let` names below.
    public let code: String
    /// One or two human sentences: what failed, why (OpenSSL's reason where there is one), and
    /// what to do about it when we can tell.
    public let description: String
    /// The TLS alert the peer sent us, when the failure is that alert (RFC 8446 §6.2), e.g. 48
    /// for `unknown_ca`.
    public let receivedAlert: UInt8?
    /// OpenSSL's X.509 verification result (`X509_V_ERR_*`) when certificate verification failed.
    public let verifyResult: Int?
    /// The position in the peer's chain where verification failed (0 is the leaf).
    public let verifyDepth: Int?

    init(
        code: String, description: String, receivedAlert: UInt8? = nil, verifyResult: Int? = nil,
        verifyDepth: Int? = nil
    ) {
        self.code = code
        self.description = description
        self.receivedAlert = receivedAlert
        self.verifyResult = verifyResult
        self.verifyDepth = verifyDepth
    }

    // MARK: Codes: handshakes and connections

    /// The client refused the certificate Faultline presented (alert `unknown_ca`,
    /// `bad_certificate` or `certificate_unknown`): it does not trust the Faultline CA.
    public static let clientRejectedCertificate = "client-rejected-certificate"
    /// The upstream server's certificate chain did not verify (unknown issuer, expired, ...).
    public static let upstreamCertificateInvalid = "upstream-certificate-invalid"
    /// The upstream server's certificate is valid but not for the name or address we connected to.
    public static let hostnameMismatch = "hostname-mismatch"
    /// The peer's bytes are not TLS at all (for example a plain HTTP request).
    public static let notTLS = "not-tls"
    /// Client and server share no application protocol (RFC 7301 §3.2 `no_application_protocol`).
    public static let noApplicationProtocol = "no-application-protocol"
    /// Client and server share no protocol version (TLS 1.2 is the oldest we speak).
    public static let unsupportedProtocolVersion = "unsupported-protocol-version"
    /// The peer closed the connection in the middle of the handshake.
    public static let handshakeInterrupted = "handshake-interrupted"
    /// Any other handshake failure; the description carries OpenSSL's reason.
    public static let handshakeFailed = "handshake-failed"
    /// The peer sent a fatal alert after the handshake.
    public static let alertReceived = "alert-received"
    /// The peer closed the connection without `close_notify` (RFC 8446 §6.1): data may be cut.
    public static let unexpectedEOF = "unexpected-eof"
    /// A record after the handshake could not be decrypted or parsed.
    public static let protocolError = "protocol-error"
    /// No certificate could be minted for the host the client asked for.
    public static let certificateUnavailable = "certificate-unavailable"

    // MARK: Codes: configuration

    /// A host name or address is not something a certificate can name.
    public static let invalidHost = "invalid-host"
    /// A CA certificate or key file is missing, unreadable, or not PEM.
    public static let caUnreadable = "ca-unreadable"
    /// A CA certificate is not usable as a CA, or its key does not belong to it.
    public static let caInvalid = "ca-invalid"
    /// The CA directory or files could not be created or written.
    public static let caWriteFailed = "ca-write-failed"
    /// A trust-anchor file for upstream verification could not be loaded.
    public static let trustAnchorsUnreadable = "trust-anchors-unreadable"
    /// The ALPN protocol list is empty-named or a name is longer than 255 bytes (RFC 7301 §3.1).
    public static let invalidALPN = "invalid-alpn"
    /// OpenSSL failed where it should not (out of memory, a missing algorithm).
    public static let internalFailure = "openssl-failure"
}
