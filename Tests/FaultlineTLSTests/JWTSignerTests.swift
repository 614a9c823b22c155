import COpenSSL
import FaultlineCore
import Foundation
import Testing

@testable import FaultlineTLS

/// The run's JWT keys: each algorithm's signature verifies with OpenSSL against a public key built
/// from the published JWK Set alone (so the set is checked too), the HMAC ones against RFC 7515's
/// own example and OpenSSL's one-shot HMAC, and none of it verifies over other bytes.
@Suite("Signing re-minted JWTs")
struct JWTSignerTests {
    /// RFC 7515 Appendix A.1: the HS256 example's key, signing input and signature.
    static let exampleKey = "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"
    static let exampleInput =
        "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9"
        + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
    static let exampleSignature = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"

    @Test("HS256 gives RFC 7515 A.1's signature for its key and input")
    func hs256MatchesTheRFCExample() throws {
        let key = try #require(base64URL(Self.exampleKey))
        let signer = try JWTSigner.make(secret: key)
        let signature = try #require(signer.sign(Array(Self.exampleInput.utf8), alg: "HS256"))
        #expect(Base64.encoded(signature, variant: .urlUnpadded) == Self.exampleSignature)
    }

    @Test("HS384 and HS512 are OpenSSL's HMAC with the run's secret", arguments: ["HS384", "HS512"])
    func hmacMatchesOpenSSL(alg: String) throws {
        let secret = (0..<64).map { UInt8($0 * 7 % 256) }
        let signer = try JWTSigner.make(secret: secret)
        let input = Array("eyJhbGciOiJIUzUxMiJ9.eyJzdWIiOiJhbm4ifQ".utf8)
        let signature = try #require(signer.sign(input, alg: alg))
        var expected = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        let digest = alg == "HS384" ? EVP_sha384() : EVP_sha512()
        try #require(HMAC(digest, secret, Int32(secret.count), input, input.count, &expected, &length) != nil)
        #expect(signature == Array(expected.prefix(Int(length))))
        #expect(signer.kid(for: alg)?.hasPrefix("hs-") == true)
    }

    @Test(
        "Each asymmetric signature verifies against the JWK Set's key, and not over other bytes",
        arguments: ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"])
    func verifiesAgainstThePublishedKey(alg: String) throws {
        let signer = try JWTSigner.makeEphemeral()
        let input = Array("eyJhbGciOiJSUzI1NiIsImtpZCI6IngifQ.eyJzdWIiOiJhbm4iLCJleHAiOjE3OTYxNzMyMDB9".utf8)
        let signature = try #require(signer.sign(input, alg: alg))
        let kid = try #require(signer.kid(for: alg))
        let jwk = try #require(signer.publicKeySet["keys"]?.arrayValue?.first { $0["kid"]?.stringValue == kid })
        let key = try #require(publicKey(from: jwk))
        defer { EVP_PKEY_free(key) }
        switch alg.prefix(2) {
        case "ES": #expect(signature.count == ["ES256": 64, "ES384": 96, "ES512": 132][alg])  // R || S, RFC 7518 §3.4
        case "Ed": #expect(signature.count == 64)  // RFC 8032 §5.1.6
        default: #expect(signature.count == 256)  // RSA 2048
        }
        #expect(verify(signature, over: input, alg: alg, key: key))
        #expect(!verify(signature, over: input + [UInt8(ascii: "x")], alg: alg, key: key))
        var flipped = signature
        flipped[flipped.count / 2] ^= 1
        #expect(!verify(flipped, over: input, alg: alg, key: key))
    }

    @Test("The JWK Set has the public halves only, and the algorithms it cannot sign get nothing")
    func publicKeySetAndUnknownAlgorithms() throws {
        let signer = try JWTSigner.makeEphemeral()
        let keys = try #require(signer.publicKeySet["keys"]?.arrayValue)
        #expect(keys.map { $0["kty"]?.stringValue } == ["RSA", "EC", "EC", "EC", "OKP"])
        #expect(keys.compactMap { $0["crv"]?.stringValue } == ["P-256", "P-384", "P-521", "Ed25519"])
        try #require(keys.count == 5)
        // RFC 8037 §2: an OKP key has `x` alone, 32 octets for Ed25519.
        #expect(keys[4]["y"] == nil && keys[4]["x"]?.stringValue.flatMap(base64URL)?.count == 32)
        #expect(keys[3]["x"]?.stringValue.flatMap(base64URL)?.count == 66)
        for key in keys {
            // RFC 7518 §6.3.2 and §6.2.2: the private members; `k` is a symmetric key (§6.4).
            for member in ["d", "p", "q", "dp", "dq", "qi", "k"] { #expect(key[member] == nil) }
            #expect(key["use"]?.stringValue == "sig")
        }
        #expect(keys[0]["e"]?.stringValue == "AQAB")
        let modulus = try #require(keys[0]["n"]?.stringValue)
        #expect(base64URL(modulus)?.count == 256)
        for alg in ["none", "ES521", "Ed448", "eddsa", "HS1", ""] {
            #expect(signer.sign([1, 2, 3], alg: alg) == nil)
            #expect(signer.kid(for: alg) == nil)
        }
        // Two runs never share keys.
        #expect(try JWTSigner.makeEphemeral().kid(for: "RS256") != signer.kid(for: "RS256"))
        #expect(!signer.description.contains(String(describing: keys[0]["n"])))
        // Each key has its own `kid`, and the description names them all.
        let kids = keys.compactMap { $0["kid"]?.stringValue }
        #expect(Set(kids).count == 5 && kids.allSatisfy(signer.description.contains))
        #expect(signer.kid(for: "ES512") == kids[3] && signer.kid(for: "EdDSA") == kids[4])
    }
}

// MARK: An independent check: OpenSSL's verify with a key built from the JWK alone

private func base64URL(_ text: String) -> [UInt8]? {
    var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
    return Data(base64Encoded: standard).map { Array($0) }
}

/// Static C strings for OSSL_PARAM keys: the array keeps the pointers past the call that made it.
private let rsaN: StaticString = "n"
private let rsaE: StaticString = "e"
private let ecGroup: StaticString = "group"
private let ecPub: StaticString = "pub"

private func cString(_ text: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// `EVP_PKEY_PUBLIC_KEY`: OSSL_KEYMGMT_SELECT_PUBLIC_KEY (0x02) with every parameter (0x84), a
/// macro Swift does not import.
private let selectPublicKey: Int32 = 0x86

private func publicKey(from jwk: JSONValue) -> OpaquePointer? {
    let type = jwk["kty"]?.stringValue ?? ""
    var key: OpaquePointer?
    guard let context = EVP_PKEY_CTX_new_from_name(nil, type == "OKP" ? "ED25519" : type, nil) else { return nil }
    defer { EVP_PKEY_CTX_free(context) }
    guard EVP_PKEY_fromdata_init(context) == 1 else { return nil }
    if type == "OKP" {
        // RFC 8037 §2: `x` is the raw public key.
        guard jwk["crv"]?.stringValue == "Ed25519", let x = jwk["x"]?.stringValue.flatMap(base64URL) else {
            return nil
        }
        return EVP_PKEY_new_raw_public_key_ex(nil, "ED25519", nil, x, x.count)
    }
    if type == "RSA" {
        // OSSL_PARAM integers are native-endian (little on every machine this runs on).
        guard var n = jwk["n"]?.stringValue.flatMap(base64URL)?.reversed().map({ $0 }),
            var e = jwk["e"]?.stringValue.flatMap(base64URL)?.reversed().map({ $0 })
        else { return nil }
        let made = n.withUnsafeMutableBufferPointer { nBuffer in
            e.withUnsafeMutableBufferPointer { eBuffer in
                var params = [
                    OSSL_PARAM_construct_BN(cString(rsaN), nBuffer.baseAddress, nBuffer.count),
                    OSSL_PARAM_construct_BN(cString(rsaE), eBuffer.baseAddress, eBuffer.count),
                    OSSL_PARAM_construct_end(),
                ]
                return EVP_PKEY_fromdata(context, &key, selectPublicKey, &params)
            }
        }
        guard made == 1 else { return nil }
        return key
    }
    let curve: StaticString
    switch jwk["crv"]?.stringValue {
    case "P-256": curve = "P-256"
    case "P-384": curve = "P-384"
    case "P-521": curve = "P-521"
    default: return nil
    }
    guard let x = jwk["x"]?.stringValue.flatMap(base64URL), let y = jwk["y"]?.stringValue.flatMap(base64URL) else {
        return nil
    }
    var point = [4] + x + y
    return point.withUnsafeMutableBufferPointer { pointBuffer in
        var params = [
            OSSL_PARAM_construct_utf8_string(cString(ecGroup), UnsafeMutablePointer(mutating: cString(curve)), 0),
            OSSL_PARAM_construct_octet_string(cString(ecPub), pointBuffer.baseAddress, pointBuffer.count),
            OSSL_PARAM_construct_end(),
        ]
        return EVP_PKEY_fromdata(context, &key, selectPublicKey, &params) == 1 ? key : nil
    }
}

/// OpenSSL's verify of a JWS signature; an ES* one is turned back into DER first, an EdDSA one
/// is verified one-shot.
private func verify(_ signature: [UInt8], over input: [UInt8], alg: String, key: OpaquePointer) -> Bool {
    var signature = signature
    if alg.hasPrefix("ES") {
        guard let der = derECDSA(signature) else { return false }
        signature = der
    }
    guard let context = EVP_MD_CTX_new() else { return false }
    defer { EVP_MD_CTX_free(context) }
    var keyContext: OpaquePointer?
    // EdDSA takes no digest (RFC 8037 §3.1).
    let digest = alg == "EdDSA" ? nil : "SHA\(alg.dropFirst(2))"
    guard EVP_DigestVerifyInit_ex(context, &keyContext, digest, nil, nil, key, nil) == 1 else {
        return false
    }
    if alg.hasPrefix("PS") {
        guard EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
            EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, RSA_PSS_SALTLEN_DIGEST) == 1
        else { return false }
    }
    return EVP_DigestVerify(context, signature, signature.count, input, input.count) == 1
}

private func derECDSA(_ raw: [UInt8]) -> [UInt8]? {
    let half = raw.count / 2
    guard let value = ECDSA_SIG_new() else { return nil }
    defer { ECDSA_SIG_free(value) }
    let r = BN_bin2bn(raw, Int32(half), nil)
    let s = Array(raw[half...]).withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(half), nil) }
    guard ECDSA_SIG_set0(value, r, s) == 1 else { return nil }
    var out: UnsafeMutablePointer<UInt8>?
    let length = i2d_ECDSA_SIG(value, &out)
    guard length > 0, let out else { return nil }
    defer { faultline_OPENSSL_free(out) }
    return Array(UnsafeBufferPointer(start: out, count: Int(length)))
}
