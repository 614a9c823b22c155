import COpenSSL
public import FaultlineCore

/// The keys one replay run signs re-minted JWTs with (RFC 7515 §5.1), and their public half as a
/// JWK Set (RFC 7517 §5) for the recorded JWKS answers. Made in memory at start; the private keys
/// and the HMAC secret are never written anywhere, rendered, or traced: `description` names the
/// key ids only.
///
/// Lives here because FaultlineTLS is where Faultline uses OpenSSL for keys (`CertificateBuilder`
/// makes the CA's): the replay asks for bytes signed with an `alg`, and nothing else of OpenSSL
/// leaks out.
///
/// Algorithms (RFC 7518 §3.1): `HS256/384/512` with one 64-byte secret (§3.2: at least the hash
/// size); `RS256/384/512` and `PS256/384/512` with one RSA 2048 key pair (§3.3, §3.5: a salt as
/// long as the hash, MGF1 with the same hash); `ES256` on P-256 and `ES384` on P-384, the
/// signature the raw `R || S` each padded to the curve size (§3.4), not OpenSSL's DER.
///
/// `@unchecked Sendable`: the keys are written only in `init` and freed only in `deinit`; signing
/// makes its own `EVP_MD_CTX` per call and only reads the `EVP_PKEY`, which OpenSSL 3 allows from
/// any number of threads at once.
public final class JWTSigner: @unchecked Sendable, CustomStringConvertible {
    /// The algorithms `sign` supports; a token with any other `alg` (`none` included) cannot be
    /// re-minted here.
    public static let algorithms: Set<String> = [
        "HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384",
    ]

    private let secret: [UInt8]
    private let rsaKey: OpaquePointer
    private let ec256Key: OpaquePointer
    private let ec384Key: OpaquePointer
    /// Key ids: `hs-…`, `rsa-…`, `ec256-…`, `ec384-…`, each with random hex unique to the run.
    private let kids: (hmac: String, rsa: String, ec256: String, ec384: String)

    /// Takes ownership of the three keys.
    init(secret: [UInt8], rsaKey: OpaquePointer, ec256Key: OpaquePointer, ec384Key: OpaquePointer, runID: String) {
        self.secret = secret
        self.rsaKey = rsaKey
        self.ec256Key = ec256Key
        self.ec384Key = ec384Key
        kids = ("hs-\(runID)", "rsa-\(runID)", "ec256-\(runID)", "ec384-\(runID)")
    }

    deinit {
        EVP_PKEY_free(rsaKey)
        EVP_PKEY_free(ec256Key)
        EVP_PKEY_free(ec384Key)
    }

    /// A fresh key set: a random 64-byte HMAC secret, an RSA 2048 key pair, P-256 and P-384 key
    /// pairs (RSA generation takes some tens of milliseconds: once per run).
    public static func makeEphemeral() throws(TLSError) -> JWTSigner {
        try make(secret: randomBytes(64))
    }

    /// A key set with this HMAC secret and fresh key pairs (tests use a known secret).
    static func make(secret: [UInt8]) throws(TLSError) -> JWTSigner {
        let runID = try randomBytes(6).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let rsa = try generate("RSA") { EVP_PKEY_CTX_set_rsa_keygen_bits($0, 2048) }
        do throws(TLSError) {
            let ec256 = try generate("EC") { EVP_PKEY_CTX_set_group_name($0, "P-256") }
            do throws(TLSError) {
                let ec384 = try generate("EC") { EVP_PKEY_CTX_set_group_name($0, "P-384") }
                return JWTSigner(secret: secret, rsaKey: rsa, ec256Key: ec256, ec384Key: ec384, runID: runID)
            } catch {
                EVP_PKEY_free(ec256)
                throw error
            }
        } catch {
            EVP_PKEY_free(rsa)
            throw error
        }
    }

    public var description: String { "JWTSigner(kids: \(kids.hmac), \(kids.rsa), \(kids.ec256), \(kids.ec384))" }

    /// The `kid` a token signed with `alg` names; nil for an algorithm not in `algorithms`.
    public func kid(for alg: String) -> String? {
        guard Self.algorithms.contains(alg) else { return nil }
        switch alg.prefix(2) {
        case "HS": return kids.hmac
        case "ES": return alg == "ES256" ? kids.ec256 : kids.ec384
        default: return kids.rsa
        }
    }

    /// The JWS signature of `input` (the ASCII `header.claims`, RFC 7515 §5.1 step 5) with `alg`;
    /// nil for an algorithm not in `algorithms` or when OpenSSL fails.
    public func sign(_ input: [UInt8], alg: String) -> [UInt8]? {
        guard Self.algorithms.contains(alg), let bits = Int(alg.dropFirst(2)) else { return nil }
        let digestName = "SHA\(bits)"
        switch alg.prefix(2) {
        case "HS": return hmac(input, digest: digestName)
        case "RS": return digestSign(input, key: rsaKey, digest: digestName, pss: false)
        case "PS": return digestSign(input, key: rsaKey, digest: digestName, pss: true)
        default:
            let isP256 = alg == "ES256"
            guard let der = digestSign(input, key: isP256 ? ec256Key : ec384Key, digest: digestName, pss: false)
            else { return nil }
            return Self.rawECDSA(der, size: isP256 ? 32 : 48)
        }
    }

    /// The public keys as a JWK Set (RFC 7517 §5): the RSA key's `n` and `e` (RFC 7518 §6.3.1),
    /// the EC keys' `crv`, `x`, `y` (§6.2.1), each with its `kid` and `use: sig`. No `alg`: one RSA
    /// key serves RS* and PS* (RFC 7517 §4.4 makes it optional). The HMAC secret has no public half.
    public var publicKeySet: JSONValue {
        var keys: [JSONValue] = []
        if let n = Self.bigNumber(rsaKey, "n"), let e = Self.bigNumber(rsaKey, "e") {
            keys.append(
                .object([
                    "kty": .string("RSA"), "use": .string("sig"), "kid": .string(kids.rsa),
                    "n": .string(Base64.encoded(n, variant: .urlUnpadded)),
                    "e": .string(Base64.encoded(e, variant: .urlUnpadded)),
                ]))
        }
        for (key, curve, size, kid) in [(ec256Key, "P-256", 32, kids.ec256), (ec384Key, "P-384", 48, kids.ec384)] {
            // The uncompressed point (SEC 1 §2.3.3): 0x04, then X and Y at the curve's size.
            guard let point = Self.octets(key, "pub"), point.count == 1 + 2 * size, point[0] == 4 else { continue }
            keys.append(
                .object([
                    "kty": .string("EC"), "use": .string("sig"), "kid": .string(kid), "crv": .string(curve),
                    "x": .string(Base64.encoded(Array(point[1...size]), variant: .urlUnpadded)),
                    "y": .string(Base64.encoded(Array(point[(size + 1)...]), variant: .urlUnpadded)),
                ]))
        }
        return .object(["keys": .array(keys)])
    }

    // MARK: OpenSSL

    private func hmac(_ input: [UInt8], digest: String) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: 64)
        var length = 0
        let done = secret.withUnsafeBytes { key in
            EVP_Q_mac(
                nil, "HMAC", nil, digest, nil, key.baseAddress, key.count, input, input.count, &out, out.count, &length)
        }
        return done == nil ? nil : Array(out.prefix(length))
    }

    private func digestSign(_ input: [UInt8], key: OpaquePointer, digest: String, pss: Bool) -> [UInt8]? {
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer?
        guard EVP_DigestSignInit_ex(context, &keyContext, digest, nil, nil, key, nil) == 1 else { return nil }
        if pss {
            // RFC 7518 §3.5: the salt is as long as the hash; OpenSSL's MGF1 hash defaults to it.
            guard EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
                EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, RSA_PSS_SALTLEN_DIGEST) == 1
            else { return nil }
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, input, input.count) == 1 else { return nil }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, input, input.count) == 1 else { return nil }
        return Array(signature.prefix(length))
    }

    /// OpenSSL's DER `ECDSA-Sig-Value` (RFC 3279 §2.2.3) as JWS wants it: `R || S`, each
    /// big-endian and left-padded to `size` bytes (RFC 7518 §3.4).
    static func rawECDSA(_ der: [UInt8], size: Int) -> [UInt8]? {
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { return nil }
        defer { ECDSA_SIG_free(parsed) }
        var raw = [UInt8](repeating: 0, count: 2 * size)
        let written = raw.withUnsafeMutableBufferPointer { buffer in
            (
                BN_bn2binpad(ECDSA_SIG_get0_r(parsed), buffer.baseAddress, Int32(size)),
                BN_bn2binpad(ECDSA_SIG_get0_s(parsed), buffer.baseAddress! + size, Int32(size))
            )
        }
        return written.0 == size && written.1 == size ? raw : nil
    }

    private static func generate(
        _ type: String, configure: (OpaquePointer?) -> Int32
    ) throws(TLSError) -> OpaquePointer {
        OpenSSLErrorQueue.clear()
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else {
            throw OpenSSLErrorQueue.error(TLSError.internalFailure, "Making a \(type) key context failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, configure(context) == 1, EVP_PKEY_generate(context, &key) == 1,
            let key
        else {
            throw OpenSSLErrorQueue.error(TLSError.internalFailure, "Generating a \(type) signing key failed")
        }
        return key
    }

    private static func randomBytes(_ count: Int) throws(TLSError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else {
            throw OpenSSLErrorQueue.error(TLSError.internalFailure, "Drawing random bytes failed")
        }
        return bytes
    }

    /// A big-number key parameter (`n`, `e`) as unsigned big-endian bytes, no leading zeros.
    private static func bigNumber(_ key: OpaquePointer, _ name: String) -> [UInt8]? {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key, name, &number) == 1, let number else { return nil }
        defer { BN_free(number) }
        var bytes = [UInt8](repeating: 0, count: (Int(BN_num_bits(number)) + 7) / 8)
        let written = BN_bn2bin(number, &bytes)
        return Int(written) == bytes.count ? bytes : nil
    }

    private static func octets(_ key: OpaquePointer, _ name: String) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: 160)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(key, name, &bytes, bytes.count, &length) == 1 else { return nil }
        return Array(bytes.prefix(length))
    }
}
