import COpenSSL
import FaultlineTLS
import Foundation
import Testing

@Suite("Minting leaf certificates")
struct MintingTests {
    let authority: CertificateAuthority

    init() throws {
        authority = try CertificateAuthority.makeEphemeral()
    }

    @Test("A DNS name gets a DNS SAN, lower-cased without the root dot; OpenSSL's host check agrees")
    func dnsName() throws {
        let leaf = try authority.certificate(for: "API.Example.COM.")
        #expect(leaf.host == "api.example.com")
        #expect(leaf.subjectAlternativeNames == ["DNS:api.example.com"])
        #expect(leaf.subjectDescription == "CN=api.example.com,O=Faultline")
        try withX509(leaf.certificateDER) { certificate in
            #expect(X509_check_host(certificate, "api.example.com", 0, 0, nil) == 1)
            #expect(X509_check_host(certificate, "other.example.com", 0, 0, nil) == 0)
            #expect(X509_check_ip_asc(certificate, "127.0.0.1", 0) == 0)
        }
        #expect(
            try verifyChain(leaf: leaf.certificateDER, authority: authority.certificateDER, host: "api.example.com")
                == X509_V_OK)
        #expect(
            try verifyChain(leaf: leaf.certificateDER, authority: authority.certificateDER, host: "evil.example.com")
                == X509_V_ERR_HOSTNAME_MISMATCH)
    }

    @Test(
        "IP literals get an IP SAN (not DNS)",
        arguments: [
            ("127.0.0.1", "127.0.0.1"), ("::1", "::1"), ("[::1]", "::1"), ("2001:DB8:0:0::1", "2001:db8::1"),
        ])
    func ipAddress(input: String, canonical: String) throws {
        let leaf = try authority.certificate(for: input)
        #expect(leaf.host == canonical)
        #expect(leaf.subjectAlternativeNames == ["IP:\(canonical)"])
        try withX509(leaf.certificateDER) { certificate in
            #expect(X509_check_ip_asc(certificate, canonical, 0) == 1)
            #expect(X509_check_host(certificate, canonical, 0, UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT), nil) != 1)
        }
        #expect(try verifyChain(leaf: leaf.certificateDER, authority: authority.certificateDER) == X509_V_OK)
    }

    @Test(
        "Leaves are P-256 server certificates: EKU serverAuth, digitalSignature (critical), CA:FALSE, AKI = CA's SKI, a year from yesterday"
    )
    func leafExtensions() throws {
        let leaf = try authority.certificate(for: "leaf.test")
        try withX509(authority.certificateDER) { caCertificate in
            try withX509(leaf.certificateDER) { certificate in
                #expect(X509_get_extended_key_usage(certificate) == UInt32(XKU_SSL_SERVER))
                #expect(X509_get_key_usage(certificate) == UInt32(KU_DIGITAL_SIGNATURE))
                #expect(isCritical(certificate, NID_key_usage))
                #expect(X509_check_ca(certificate) == 0)
                #expect(X509_check_purpose(certificate, X509_PURPOSE_SSL_SERVER, 0) == 1)
                let authorityKeyID = try #require(X509_get0_authority_key_id(certificate))
                let subjectKeyID = try #require(X509_get0_subject_key_id(caCertificate))
                #expect(ASN1_OCTET_STRING_cmp(authorityKeyID, subjectKeyID) == 0)
                #expect(X509_check_issued(caCertificate, certificate) == X509_V_OK)
                let key = try #require(X509_get0_pubkey(certificate))
                #expect(EVP_PKEY_get_base_id(key) == EVP_PKEY_EC)
                #expect(EVP_PKEY_get_bits(key) == 256)
                let lifetime = secondsBetween(X509_get0_notBefore(certificate), X509_get0_notAfter(certificate))
                #expect(lifetime == (365 + 1) * 86_400)
            }
        }
    }

    @Test("The chain verifies with X509_verify_cert against the CA, and not against another CA")
    func chainVerifies() throws {
        let leaf = try authority.certificate(for: "chain.test")
        #expect(try verifyChain(leaf: leaf.certificateDER, authority: authority.certificateDER) == X509_V_OK)
        let stranger = try CertificateAuthority.makeEphemeral()
        #expect(
            try verifyChain(leaf: leaf.certificateDER, authority: stranger.certificateDER)
                == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY)
    }

    @Test("The cache returns the same object for the same host (any case); other hosts get other certificates")
    func cache() throws {
        #expect(authority.cachedCertificate(for: "cache.test") == nil)
        let first = try authority.certificate(for: "cache.test")
        #expect(try authority.certificate(for: "CACHE.test") === first)
        #expect(authority.cachedCertificate(for: "cache.test.") === first)
        let other = try authority.certificate(for: "other.test")
        #expect(other !== first)
        #expect(other.certificateDER != first.certificateDER)
        #expect(other.sha256Fingerprint != first.sha256Fingerprint)
        // Serials are random: two leaves never share one.
        try withX509(first.certificateDER) { a in
            try withX509(other.certificateDER) { b in
                #expect(ASN1_INTEGER_cmp(X509_get0_serialNumber(a), X509_get0_serialNumber(b)) != 0)
            }
        }
    }

    @Test("Threads asking for the same new host all get one object")
    func concurrentMinting() throws {
        let results = LockedBox<[ObjectIdentifier]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            guard let leaf = try? authority.certificate(for: index % 2 == 0 ? "race.test" : "RACE.test") else { return }
            results.mutate { $0.append(ObjectIdentifier(leaf)) }
        }
        let identifiers = results.value
        #expect(identifiers.count == 16)
        #expect(Set(identifiers).count == 1)
    }

    @Test(
        "Names no certificate can carry are refused with invalid-host",
        arguments: [
            "", "a b", "foo..bar", ".", "*.example.com", "exa\u{0}mple.com", "bücher.example",
            String(repeating: "a", count: 64) + ".test",
            String(repeating: "abcdefgh.", count: 29) + "test",
        ])
    func invalidHosts(host: String) throws {
        let error = try #require(throws: TLSError.self) { try authority.certificate(for: host) }
        #expect(error.code == TLSError.invalidHost)
        #expect(!error.description.contains("\u{0}"))
    }

    @Test("A host longer than a common name can hold still gets its SAN")
    func longHost() throws {
        let host = String(repeating: "a", count: 60) + ".example.test"
        let leaf = try authority.certificate(for: host)
        #expect(leaf.subjectAlternativeNames == ["DNS:\(host)"])
        #expect(leaf.subjectDescription == "O=Faultline")
        #expect(
            try verifyChain(leaf: leaf.certificateDER, authority: authority.certificateDER, host: host) == X509_V_OK)
    }

    @Test("A SAN cannot be smuggled through config syntax (a comma in a name is refused, not parsed)")
    func noInjection() throws {
        let error = try #require(throws: TLSError.self) { try authority.certificate(for: "a.test,IP:10.0.0.1") }
        #expect(error.code == TLSError.invalidHost)
    }
}

/// A value shared between test threads.
final class LockedBox<Value>: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
