import COpenSSL

/// An OpenSSL certificate and its private key, both owned: they are freed together when this
/// value is destroyed. ``CertificateAuthority`` and ``LeafCertificate`` each keep one, so the rule
/// for releasing a certificate's objects is written once.
///
/// `~Copyable` so that exactly one value owns the two objects (a copy would free them twice), and
/// so that it lives inline in its holder: the objects are freed when the holder is, as before.
/// `@unchecked Sendable`: both pointers are set in `init` and never mutated; the objects are only
/// read afterwards (OpenSSL's lazily cached X.509 data has its own lock).
struct OwnedCertificate: ~Copyable, @unchecked Sendable {
    /// `X509 *`, owned.
    let certificate: OpaquePointer
    /// `EVP_PKEY *`, owned. Never rendered anywhere.
    let privateKey: OpaquePointer

    /// Takes ownership of `certificate` and `privateKey`.
    init(certificate: OpaquePointer, privateKey: OpaquePointer) {
        self.certificate = certificate
        self.privateKey = privateKey
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(privateKey)
    }
}
