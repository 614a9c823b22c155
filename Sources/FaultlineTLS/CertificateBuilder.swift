import COpenSSL

/// Builds the two kinds of certificate Faultline signs: its own root CA and per-host leaves.
///
/// Keys are EC P-256: generating one takes well under a millisecond, where RSA-2048 takes
/// hundreds. Every certificate is X.509 v3 with a random positive 127-bit serial (RFC 5280
/// §4.1.2.2: at most 20 octets, unique per issuer) and a SHA-256 ECDSA signature. Extension
/// values that are fixed text go through OpenSSL's config syntax; the subject alternative name
/// is built from typed values, because it carries a peer-supplied host name and a comma in
/// config syntax would start a second name.
enum CertificateBuilder {
    static let secondsPerDay = 86_400

    /// A fresh P-256 key pair. The caller owns it (`EVP_PKEY_free`).
    static func generateKey() throws(TLSError) -> OpaquePointer {
        OpenSSLErrorQueue.clear()
        guard let key = faultline_EVP_EC_gen_P256() else {
            throw OpenSSLErrorQueue.error(TLSError.internalFailure, "Generating a P-256 key failed")
        }
        return key
    }

    /// A self-signed root: basicConstraints critical CA:TRUE pathlen:0, keyUsage critical
    /// keyCertSign cRLSign, subjectKeyIdentifier; valid from a day ago (clock skew) for `days`.
    static func makeAuthority(commonName: String, key: OpaquePointer, days: Int) throws(TLSError) -> OpaquePointer {
        try build { certificate throws(TLSError) in
            guard let subject = X509_get_subject_name(certificate) else { throw failure("reading the subject name") }
            // Most general first (RFC 2253 prints it reversed: "CN=...,O=Faultline").
            try addEntry(subject, "O", "Faultline")
            try addEntry(subject, "CN", commonName)
            X509_set_issuer_name(certificate, subject)
            try setValidity(certificate, days: days)
            guard X509_set_pubkey(certificate, key) == 1 else { throw failure("setting the public key") }
            try addExtension(certificate, issuer: certificate, NID_basic_constraints, "critical,CA:TRUE,pathlen:0")
            try addExtension(certificate, issuer: certificate, NID_key_usage, "critical,keyCertSign,cRLSign")
            try addExtension(certificate, issuer: certificate, NID_subject_key_identifier, "hash")
            try sign(certificate, key)
        }
    }

    /// A leaf for `identity`, signed by `issuer`/`issuerKey`: SAN DNS or IP, EKU serverAuth,
    /// keyUsage critical digitalSignature, CA:FALSE, authorityKeyIdentifier; valid from a day ago
    /// for `days`, but never past the issuer's own expiry.
    static func makeLeaf(
        _ identity: HostIdentity, key: OpaquePointer, issuer: OpaquePointer, issuerKey: OpaquePointer, days: Int
    ) throws(TLSError) -> OpaquePointer {
        try build { certificate throws(TLSError) in
            guard let subject = X509_get_subject_name(certificate) else { throw failure("reading the subject name") }
            // The common name is limited to 64 characters (RFC 5280 Appendix A, ub-common-name);
            // clients match the SAN anyway (RFC 6125 §6.4.4), so a longer name goes without a CN.
            try addEntry(subject, "O", "Faultline")
            if identity.text.utf8.count <= 64 { try addEntry(subject, "CN", identity.text) }
            guard X509_set_issuer_name(certificate, X509_get_subject_name(issuer)) == 1 else {
                throw failure("setting the issuer name")
            }
            try setValidity(certificate, days: days)
            if let issuerEnd = X509_get0_notAfter(issuer), let end = X509_getm_notAfter(certificate),
                ASN1_TIME_compare(end, issuerEnd) > 0
            {
                X509_set1_notAfter(certificate, issuerEnd)
            }
            guard X509_set_pubkey(certificate, key) == 1 else { throw failure("setting the public key") }
            try addSubjectAlternativeName(certificate, identity)
            try addExtension(certificate, issuer: issuer, NID_basic_constraints, "critical,CA:FALSE")
            try addExtension(certificate, issuer: issuer, NID_key_usage, "critical,digitalSignature")
            try addExtension(certificate, issuer: issuer, NID_ext_key_usage, "serverAuth")
            // "keyid" takes the issuer's subjectKeyIdentifier; a user CA without one gets no
            // keyid rather than a failure ("issuer" then names it by issuer and serial instead).
            try addExtension(certificate, issuer: issuer, NID_authority_key_identifier, "keyid,issuer")
            try sign(certificate, issuerKey)
        }
    }

    // MARK: Steps

    /// Creates an empty v3 certificate with a random serial, runs `fill`, and frees it on failure.
    private static func build(_ fill: (OpaquePointer) throws(TLSError) -> Void) throws(TLSError) -> OpaquePointer {
        OpenSSLErrorQueue.clear()
        guard let certificate = X509_new() else { throw failure("allocating a certificate") }
        do throws(TLSError) {
            guard X509_set_version(certificate, 2) == 1 else { throw failure("setting the version") }  // 2 is v3
            try setRandomSerial(certificate)
            try fill(certificate)
            return certificate
        } catch {
            X509_free(certificate)
            throw error
        }
    }

    private static func setRandomSerial(_ certificate: OpaquePointer) throws(TLSError) {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&bytes, Int32(bytes.count)) == 1 else { throw failure("drawing a random serial") }
        bytes[0] &= 0x7F  // positive
        bytes[0] |= 0x40  // and never shorter than 16 octets, so never zero
        guard let number = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw failure("making the serial") }
        defer { BN_free(number) }
        guard BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != nil else {
            throw failure("setting the serial")
        }
    }

    private static func setValidity(_ certificate: OpaquePointer, days: Int) throws(TLSError) {
        guard X509_gmtime_adj(X509_getm_notBefore(certificate), -secondsPerDay) != nil,
            X509_gmtime_adj(X509_getm_notAfter(certificate), days * secondsPerDay) != nil
        else { throw failure("setting the validity period") }
    }

    private static func addEntry(_ name: OpaquePointer, _ field: String, _ value: String) throws(TLSError) {
        let added = X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, value, -1, -1, 0)
        guard added == 1 else { throw failure("adding \(field) to the name") }
    }

    private static func addExtension(
        _ certificate: OpaquePointer, issuer: OpaquePointer, _ nid: Int32, _ value: String
    ) throws(TLSError) {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer, certificate, nil, nil, 0)
        guard let ext = X509V3_EXT_nconf_nid(nil, &context, nid, value) else {
            throw failure("making the extension \"\(value)\"")
        }
        defer { X509_EXTENSION_free(ext) }
        guard X509_add_ext(certificate, ext, -1) == 1 else { throw failure("adding the extension \"\(value)\"") }
    }

    private static func addSubjectAlternativeName(_ certificate: OpaquePointer, _ identity: HostIdentity)
        throws(TLSError)
    {
        guard let names = faultline_sk_GENERAL_NAME_new_null() else { throw failure("allocating the SAN") }
        defer { GENERAL_NAMES_free(names) }
        guard let name = GENERAL_NAME_new() else { throw failure("allocating the SAN") }
        switch identity {
        case .dnsName(let host):
            guard let value = ASN1_IA5STRING_new() else {
                GENERAL_NAME_free(name)
                throw failure("allocating the SAN")
            }
            ASN1_STRING_set(value, host, Int32(host.utf8.count))
            GENERAL_NAME_set0_value(name, GEN_DNS, UnsafeMutableRawPointer(value))
        case .ipAddress(_, let octets):
            guard let value = ASN1_OCTET_STRING_new() else {
                GENERAL_NAME_free(name)
                throw failure("allocating the SAN")
            }
            ASN1_OCTET_STRING_set(value, octets, Int32(octets.count))
            GENERAL_NAME_set0_value(name, GEN_IPADD, UnsafeMutableRawPointer(value))
        }
        guard faultline_sk_GENERAL_NAME_push(names, name) > 0 else {
            GENERAL_NAME_free(name)
            throw failure("building the SAN")
        }
        guard X509_add1_ext_i2d(certificate, NID_subject_alt_name, UnsafeMutableRawPointer(names), 0, 0) == 1 else {
            throw failure("adding the SAN")
        }
    }

    private static func sign(_ certificate: OpaquePointer, _ key: OpaquePointer) throws(TLSError) {
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw failure("signing the certificate") }
    }

    private static func failure(_ step: String) -> TLSError {
        OpenSSLErrorQueue.error(TLSError.internalFailure, "Building a certificate failed while \(step)")
    }
}
