import COpenSSL
import FaultlineCore

/// The local certificate authority that signs the certificates Faultline presents to clients it
/// intercepts. A client must trust this CA's certificate (``certificatePEM``) for interception to
/// work: `faultline ca export`, or `curl --cacert`.
///
/// Make one per process with ``loadOrCreate(directory:)`` (Faultline's own CA, created on first
/// use) or ``load(certificatePath:keyPath:)`` (a CA the user brings), and share it: minted leaves
/// are cached here, per host, for every connection and thread.
///
/// `@unchecked Sendable`: the certificate and key are set in `init` and never mutated (signing only
/// reads the key; OpenSSL's lazily cached X.509 data has its own lock); the cache is a `StateLock`;
/// both OpenSSL objects are freed with the authority, when no other reference exists.
public final class CertificateAuthority: @unchecked Sendable {
    /// The CA's certificate and signing key.
    let owned: OwnedCertificate
    /// The file the certificate was read from or written to; nil for an ephemeral CA.
    public let certificatePath: String?
    private let cache = StateLock(LeafCache())

    /// How long Faultline's own CA is valid: two years.
    public static let authorityValidityDays = 730
    /// How long a minted leaf is valid: one year, within the 398 days browsers and Apple
    /// platforms accept for a server certificate.
    public static let leafValidityDays = 365
    /// Cached leaves beyond this many are dropped (oldest first) so that a client inventing host
    /// names cannot grow memory without bound.
    public static let maximumCachedCertificates = 4096

    /// Takes ownership of `certificate` and `privateKey`.
    init(certificate: OpaquePointer, privateKey: OpaquePointer, certificatePath: String?) {
        owned = OwnedCertificate(certificate: certificate, privateKey: privateKey)
        self.certificatePath = certificatePath
    }

    /// A new CA that lives only in memory (for tests and throwaway proxies); nothing is written.
    public static func makeEphemeral() throws(TLSError) -> CertificateAuthority {
        let (certificate, key) = try makeAuthorityPair()
        return CertificateAuthority(certificate: certificate, privateKey: key, certificatePath: nil)
    }

    /// Generates Faultline's root: P-256 key, CN "Faultline Local CA <8 random hex digits>" (so two
    /// machines' CAs are told apart in a trust store), O "Faultline". The caller owns both.
    static func makeAuthorityPair() throws(TLSError) -> (certificate: OpaquePointer, key: OpaquePointer) {
        var suffix = [UInt8](repeating: 0, count: 4)
        guard RAND_bytes(&suffix, 4) == 1 else {
            throw OpenSSLErrorQueue.error(TLSError.internalFailure, "Drawing random bytes failed")
        }
        let hex = suffix.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let key = try CertificateBuilder.generateKey()
        do throws(TLSError) {
            let certificate = try CertificateBuilder.makeAuthority(
                commonName: "Faultline Local CA \(hex)", key: key, days: authorityValidityDays)
            return (certificate, key)
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
    }

    // MARK: The CA certificate

    /// The CA certificate as PEM text, for `faultline ca export --format pem` and `--cacert`.
    public var certificatePEM: String { X509Text.pem(owned.certificate) }
    /// The CA certificate's DER encoding, for `faultline ca export --format der` (devices).
    public var certificateDER: [UInt8] { X509Text.der(owned.certificate) }
    /// The CA's subject as an RFC 2253 string, e.g. `CN=Faultline Local CA 1a2b3c4d,O=Faultline`.
    public var subjectDescription: String { X509Text.subject(owned.certificate) }
    /// The SHA-256 fingerprint of the CA certificate, colon-separated hex (what trust-store UIs show).
    public var sha256Fingerprint: String { X509Text.sha256Fingerprint(owned.certificate) }

    // MARK: Leaves

    /// The leaf certificate for `host` (a DNS name, or an IPv4/IPv6 literal, brackets allowed),
    /// minted on first use and cached: the same object comes back for the same host (compared
    /// case-insensitively) from any thread. Throws `invalid-host` for a name no certificate can
    /// carry, `openssl-failure` if signing fails.
    public func certificate(for host: String) throws(TLSError) -> LeafCertificate {
        try lookUpOrMint(host).certificate
    }

    /// The cached leaf for `host`, or nil if none was minted yet (or `host` is invalid).
    public func cachedCertificate(for host: String) -> LeafCertificate? {
        guard let identity = try? HostIdentity(host) else { return nil }
        return cache.withLock { $0.leaves[identity.text] }
    }

    /// Like ``certificate(for:)``, also saying whether this call minted it (for the trace).
    func lookUpOrMint(_ host: String) throws(TLSError) -> (certificate: LeafCertificate, minted: Bool) {
        let identity = try HostIdentity(host)
        if let cached = cache.withLock({ $0.leaves[identity.text] }) { return (cached, false) }
        // Mint outside the lock so other hosts are not held up; if another thread minted the same
        // host meanwhile, keep the first one so callers always share one object per host.
        let minted = try mint(identity)
        let kept = cache.withLock { $0.insert(minted, limit: Self.maximumCachedCertificates) }
        return (kept, kept === minted)
    }

    private func mint(_ identity: HostIdentity) throws(TLSError) -> LeafCertificate {
        let key = try CertificateBuilder.generateKey()
        do throws(TLSError) {
            let leaf = try CertificateBuilder.makeLeaf(
                identity, key: key, issuer: owned.certificate, issuerKey: owned.privateKey, days: Self.leafValidityDays)
            return LeafCertificate(host: identity.text, certificate: leaf, privateKey: key)
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
    }
}

/// Minted leaves by canonical host, with insertion order for eviction.
private struct LeafCache: Sendable {
    var leaves: [String: LeafCertificate] = [:]
    var order: [String] = []
    var orderStart = 0

    /// Stores `leaf` unless its host is already cached; returns the one now cached.
    mutating func insert(_ leaf: LeafCertificate, limit: Int) -> LeafCertificate {
        if let existing = leaves[leaf.host] { return existing }
        leaves[leaf.host] = leaf
        order.append(leaf.host)
        while leaves.count > limit, orderStart < order.count {
            leaves[order[orderStart]] = nil
            orderStart += 1
        }
        if orderStart > limit {
            order.removeFirst(orderStart)
            orderStart = 0
        }
        return leaf
    }
}
