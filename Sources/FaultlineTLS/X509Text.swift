import COpenSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Read-only renderings of an OpenSSL `X509 *`: PEM, DER, subject text, fingerprint. None of
/// these touch a private key.
enum X509Text {
    /// The certificate as PEM text ("-----BEGIN CERTIFICATE-----" ...).
    static func pem(_ certificate: OpaquePointer) -> String {
        withMemoryBIO { bio in PEM_write_bio_X509(bio, certificate) == 1 }
    }

    /// The certificate's DER encoding.
    static func der(_ certificate: OpaquePointer) -> [UInt8] {
        let length = i2d_X509(certificate, nil)
        guard length > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        bytes.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            _ = i2d_X509(certificate, &cursor)
        }
        return bytes
    }

    /// The subject as an RFC 2253 string, e.g. `CN=Faultline Local CA 1a2b3c4d,O=Faultline`.
    static func subject(_ certificate: OpaquePointer) -> String {
        name(X509_get_subject_name(certificate))
    }

    /// An `X509_NAME` as an RFC 2253 string (escaped by OpenSSL, so safe to print).
    static func name(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        return withMemoryBIO { bio in X509_NAME_print_ex(bio, name, 0, faultline_XN_FLAG_RFC2253()) >= 0 }
    }

    /// The DNS and IP entries of the subject alternative name, as "DNS:name" and "IP:address".
    static func subjectAlternativeNames(_ certificate: OpaquePointer) -> [String] {
        guard let raw = X509_get_ext_d2i(certificate, NID_subject_alt_name, nil, nil) else { return [] }
        let names = OpaquePointer(raw)
        defer { GENERAL_NAMES_free(names) }
        var result: [String] = []
        for index in 0..<faultline_sk_GENERAL_NAME_num(names) {
            guard let name = faultline_sk_GENERAL_NAME_value(names, index) else { continue }
            switch name.pointee.type {
            case GEN_DNS:
                // An upstream's certificate may hold anything here; escape it before it is printed.
                let text = String(decoding: bytes(of: name.pointee.d.dNSName), as: UTF8.self)
                result.append("DNS:" + HostIdentity.printable(text))
            case GEN_IPADD:
                result.append("IP:" + address(bytes(of: name.pointee.d.iPAddress)))
            default:
                continue
            }
        }
        return result
    }

    private static func bytes(of string: UnsafeMutablePointer<ASN1_STRING>?) -> [UInt8] {
        guard let string, let data = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(string))))
    }

    private static func address(_ octets: [UInt8]) -> String {
        let family: Int32
        switch octets.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return octets.map { String($0, radix: 16) }.joined(separator: ":")
        }
        var buffer = [CChar](repeating: 0, count: 64)
        return octets.withUnsafeBytes { raw in
            buffer.withUnsafeMutableBufferPointer { out in
                guard inet_ntop(family, raw.baseAddress, out.baseAddress, 64) != nil else { return "" }
                return String(cString: out.baseAddress!)
            }
        }
    }

    /// The SHA-256 fingerprint of the DER encoding, as colon-separated upper-case hex.
    static func sha256Fingerprint(_ certificate: OpaquePointer) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, EVP_sha256(), &digest, &length) == 1 else { return "" }
        let hex = Array("0123456789ABCDEF")
        return digest.prefix(Int(length)).map { "\(hex[Int($0 >> 4)])\(hex[Int($0 & 0xF)])" }
            .joined(separator: ":")
    }

    /// Runs `write` against a fresh memory BIO and returns what it wrote as text ("" on failure).
    static func withMemoryBIO(_ write: (OpaquePointer) -> Bool) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        guard write(bio) else { return "" }
        return String(decoding: drain(bio), as: UTF8.self)
    }

    /// Everything a memory BIO holds.
    static func drain(_ bio: OpaquePointer) -> [UInt8] {
        let pending = Int(BIO_ctrl_pending(bio))
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = bytes.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(pending)) }
        if read < pending { bytes.removeLast(pending - max(0, Int(read))) }
        return bytes
    }
}
