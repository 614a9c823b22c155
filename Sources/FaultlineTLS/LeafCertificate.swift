import COpenSSL

/// A certificate Faultline minted for one host, with its private key, signed by a
/// ``CertificateAuthority``. Get one from ``CertificateAuthority/certificate(for:)``; the server
/// side of ``TLSConnection`` picks them itself.
///
/// `@unchecked Sendable`: the two OpenSSL objects are created before `init` and never mutated
/// afterwards; they are only read (rendered, or handed to `SSL_use_certificate` /
/// `SSL_use_PrivateKey`, which take their own references), and OpenSSL's lazily cached X.509
/// extension data is guarded by OpenSSL's own lock. They are freed with the leaf, when no other
/// reference exists.
public final class LeafCertificate: @unchecked Sendable {
    /// The host this certificate names in its subject alternative name, in canonical spelling
    /// (lower-case DNS name, or an IP address as `inet_ntop` writes it).
    public let host: String
    /// The leaf's certificate and key.
    let owned: OwnedCertificate

    /// Takes ownership of `certificate` and `privateKey`.
    init(host: String, certificate: OpaquePointer, privateKey: OpaquePointer) {
        self.host = host
        owned = OwnedCertificate(certificate: certificate, privateKey: privateKey)
    }

    /// The certificate (not the key) as PEM text.
    public var certificatePEM: String { X509Text.pem(owned.certificate) }
    /// The certificate's DER encoding.
    public var certificateDER: [UInt8] { X509Text.der(owned.certificate) }
    /// The subject as an RFC 2253 string, e.g. `CN=example.com,O=Faultline`.
    public var subjectDescription: String { X509Text.subject(owned.certificate) }
    /// The subject alternative names, e.g. `["DNS:example.com"]` or `["IP:127.0.0.1"]`.
    public var subjectAlternativeNames: [String] { X509Text.subjectAlternativeNames(owned.certificate) }
    /// The SHA-256 fingerprint, colon-separated hex.
    public var sha256Fingerprint: String { X509Text.sha256Fingerprint(owned.certificate) }
}
