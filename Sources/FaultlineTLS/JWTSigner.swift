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
/// long as the hash, MGF1 with the same hash); `ES256` on P-256, `ES384` on P-384 and `ES512` on
/// P-521, the signature the raw `R || S` each padded to the curve size (§3.4: 32, 48 and 66
/// octets), not OpenSSL's DER; `EdDSA` with an Ed25519 key pair (RFC 8037 §3.1: PureEdDSA, the
/// 64-octet signature as RFC 8032 §5.1.6 makes it).
///
/// `@unchecked Sendable`: the keys are written only in `init` and freed only in `deinit`; signing
/// makes its own `EVP_MD_CTX` per call and only reads the `EVP_PKEY`, which OpenSSL 3 allows from
/// any number of threads at once.
public final class JWTSigner: @unchecked Sendable, CustomStringConvertible {
    /// The algorithms `sign` supports; a token with any other `alg` (`none` included) cannot be
    /// re-minted here.
    public static let algorithms: Set<String> = [
        "HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512",
        "EdDSA",
    ]

    /// An elliptic-curve key of the run: the `alg` it signs, its JWK curve name, its field size in
    /// octets (of each of R, S, X and Y), and its `kid`.
    private struct CurveKey {
        let key: OpaquePointer
        let alg: String
        let curve: String
        let size: Int
        let kid: String
    }

    private let secret: [UInt8]
    private let rsaKey: OpaquePointer
    /// P-256, P-384 and P-521, for ES256, ES384 and ES512 (RFC 7518 §3.4).
    private let curveKeys: [CurveKey]
    private let ed25519Key: OpaquePointer
    /// Key ids: `hs-…`, `rsa-…`, `ed25519-…`, each with random hex unique to the run (the curve
    /// keys' are `ec256-…`, `ec384-…`, `ec521-…`).
    private let kids: (hmac: String, rsa: String, ed25519: String)

    /// Takes ownership of the keys; `ecKeys` are P-256, P-384 and P-521, in that order.
    init(secret: [UInt8], rsaKey: OpaquePointer, ecKeys: [OpaquePointer], ed25519Key: OpaquePointer, runID: String) {
        self.secret = secret
        self.rsaKey = rsaKey
        self.ed25519Key = ed25519Key
        curveKeys = zip(ecKeys, Self.curves).map { key, curve in
            CurveKey(
                key: key, alg: curve.alg, curve: curve.name, size: curve.size, kid: "ec\(curve.bits)-\(runID)")
        }
        kids = ("hs-\(runID)", "rsa-\(runID)", "ed25519-\(runID)")
    }

    deinit {
        EVP_PKEY_free(rsaKey)
        for curveKey in curveKeys { EVP_PKEY_free(curveKey.key) }
        EVP_PKEY_free(ed25519Key)
    }

    /// The curves of ES256, ES384 and ES512 (RFC 7518 §3.4): OpenSSL's and the JWK's name (RFC
    /// 7518 §6.2.1.1), the field size in octets, and the bits the `kid` names.
    private static let curves = [("ES256", "P-256", 32, 256), ("ES384", "P-384", 48, 384), ("ES512", "P-521", 66, 521)]
        .map { (alg: $0.0, name: $0.1, size: $0.2, bits: $0.3) }

    /// A fresh key set: a random 64-byte HMAC secret, an RSA 2048 key pair, P-256, P-384, P-521
    /// and Ed25519 key pairs (RSA generation takes some tens of milliseconds: once per run).
    public static func makeEphemeral() throws(TLSError) -> JWTSigner {
        try make(secret: randomBytes(64))
    }

    /// A key set with this HMAC secret and fresh key pairs (tests use a known secret).
    static func make(secret: [UInt8]) throws(TLSError) -> JWTSigner {
        let runID = try randomBytes(6).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        var made: [OpaquePointer] = []
        do throws(TLSError) {
            made.append(try generate("RSA") { EVP_PKEY_CTX_set_rsa_keygen_bits($0, 2048) })
            for curve in curves {
                made.append(try generate("EC") { EVP_PKEY_CTX_set_group_name($0, curve.name) })
            }
            made.append(try generate("ED25519") { _ in 1 })
        } catch {
            for key in made { EVP_PKEY_free(key) }
            throw error
        }
        return JWTSigner(
            secret: secret, rsaKey: made[0], ecKeys: Array(made[1...3]), ed25519Key: made[4], runID: runID)
    }

    public var description: String {
        "JWTSigner(kids: \(([kids.hmac, kids.rsa] + curveKeys.map(\.kid) + [kids.ed25519]).joined(separator: ", ")))"
    }

    /// The `kid` a token signed with `alg` names; nil for an algorithm not in `algorithms`.
    public func kid(for alg: String) -> String? {
        guard Self.algorithms.contains(alg) else { return nil }
        switch alg.prefix(2) {
        case "HS": return kids.hmac
        case "ES": return curveKey(for: alg)?.kid
        case "Ed": return kids.ed25519
        default: return kids.rsa
        }
    }

    /// The JWS signature of `input` (the ASCII `header.claims`, RFC 7515 §5.1 step 5) with `alg`;
    /// nil for an algorithm not in `algorithms` or when OpenSSL fails.
    public func sign(_ input: [UInt8], alg: String) -> [UInt8]? {
        guard Self.algorithms.contains(alg) else { return nil }
        // RFC 8037 §3.1: EdDSA hashes inside the algorithm (PureEdDSA), so OpenSSL takes no digest.
        if alg == "EdDSA" { return digestSign(input, key: ed25519Key, digest: nil, pss: false) }
        guard let bits = Int(alg.dropFirst(2)) else { return nil }
        let digestName = "SHA\(bits)"
        switch alg.prefix(2) {
        case "HS": return hmac(input, digest: digestName)
        case "RS": return digestSign(input, key: rsaKey, digest: digestName, pss: false)
        case "PS": return digestSign(input, key: rsaKey, digest: digestName, pss: true)
        default:
            guard let curveKey = curveKey(for: alg),
                let der = digestSign(input, key: curveKey.key, digest: digestName, pss: false)
            else { return nil }
            return Self.rawECDSA(der, size: curveKey.size)
        }
    }

    /// ES256's key is P-256's, ES384's P-384's, ES512's P-521's (RFC 7518 §3.4).
    private func curveKey(for alg: String) -> CurveKey? {
        curveKeys.first { $0.alg == alg }
    }

    /// The public keys as a JWK Set (RFC 7517 §5): the RSA key's `n` and `e` (RFC 7518 §6.3.1),
    /// the EC keys' `crv`, `x`, `y` (§6.2.1), the Ed25519 key as `kty: OKP`, `crv: Ed25519` and
    /// `x` (RFC 8037 §2), each with its `kid` and `use: sig`. No `alg`: one RSA key serves RS* and
    /// PS* (RFC 7517 §4.4 makes it optional). The HMAC secret has no public half.
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
        for curveKey in curveKeys {
            // The uncompressed point (SEC 1 §2.3.3): 0x04, then X and Y at the curve's size.
            let size = curveKey.size
            guard let point = Self.octets(curveKey.key, "pub"), point.count == 1 + 2 * size, point[0] == 4 else {
                continue
            }
            keys.append(
                .object([
                    "kty": .string("EC"), "use": .string("sig"), "kid": .string(curveKey.kid),
                    "crv": .string(curveKey.curve),
                    "x": .string(Base64.encoded(Array(point[1...size]), variant: .urlUnpadded)),
                    "y": .string(Base64.encoded(Array(point[(size + 1)...]), variant: .urlUnpadded)),
                ]))
        }
        // RFC 8037 §2: the public key's 32 octets as RFC 8032 §5.1.5 encodes them.
        if let point = Self.octets(ed25519Key, "pub"), point.count == 32 {
            keys.append(
                .object([
                    "kty": .string("OKP"), "use": .string("sig"), "kid": .string(kids.ed25519),
                    "crv": .string("Ed25519"), "x": .string(Base64.encoded(point, variant: .urlUnpadded)),
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

    /// A one-shot `EVP_DigestSign` (the only way OpenSSL signs with Ed25519); `digest` nil for it.
    private func digestSign(_ input: [UInt8], key: OpaquePointer, digest: String?, pss: Bool) -> [UInt8]? {
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
