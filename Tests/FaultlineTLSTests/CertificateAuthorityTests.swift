import COpenSSL
import Foundation
import Testing

@testable import FaultlineTLS

@Suite("Certificate authority")
struct CertificateAuthorityTests {
    @Test("First use creates ca.pem and a 0600 ca-key.pem in a 0700 directory; the second use loads the same CA")
    func createsThenReloads() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.file("nested/home")
        let first = try CertificateAuthority.loadOrCreate(directory: directory)
        #expect(first.certificatePath == directory + "/ca.pem")

        var info = stat()
        #expect(stat(directory, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
        #expect(stat(directory + "/ca-key.pem", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(stat(directory + "/ca.pem", &info) == 0)
        let pem = try String(contentsOfFile: directory + "/ca.pem", encoding: .utf8)
        #expect(pem == first.certificatePEM)
        let key = try String(contentsOfFile: directory + "/ca-key.pem", encoding: .utf8)
        #expect(key.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(!pem.contains("PRIVATE KEY"))

        let second = try CertificateAuthority.loadOrCreate(directory: directory)
        #expect(second.certificateDER == first.certificateDER)
        #expect(second.sha256Fingerprint == first.sha256Fingerprint)
        // Leaves signed by the reloaded CA verify against the first one: same key.
        let leaf = try second.certificate(for: "reload.test")
        #expect(try verifyChain(leaf: leaf.certificateDER, authority: first.certificateDER) == X509_V_OK)
    }

    @Test(
        "The CA is a P-256 root: CA:TRUE pathlen 0 (critical), keyCertSign and cRLSign (critical), SKI, named Faultline, ~2 years from yesterday"
    )
    func authorityExtensions() throws {
        let authority = try CertificateAuthority.makeEphemeral()
        #expect(authority.subjectDescription.hasPrefix("CN=Faultline Local CA "))
        #expect(authority.subjectDescription.hasSuffix(",O=Faultline"))
        try withX509(authority.certificateDER) { certificate in
            #expect(X509_check_ca(certificate) == 1)
            #expect(X509_get_pathlen(certificate) == 0)
            #expect(X509_get_key_usage(certificate) == UInt32(KU_KEY_CERT_SIGN | KU_CRL_SIGN))
            #expect(X509_get0_subject_key_id(certificate) != nil)
            #expect(isCritical(certificate, NID_basic_constraints))
            #expect(isCritical(certificate, NID_key_usage))
            // Self-signed, and the signature checks out.
            #expect(X509_check_issued(certificate, certificate) == X509_V_OK)
            let key = try #require(X509_get0_pubkey(certificate))
            #expect(X509_verify(certificate, key) == 1)
            #expect(EVP_PKEY_get_base_id(key) == EVP_PKEY_EC)
            #expect(EVP_PKEY_get_bits(key) == 256)
            let now = ASN1_TIME_set(nil, time(nil))
            defer { ASN1_STRING_free(now) }
            let backdate = secondsBetween(X509_get0_notBefore(certificate), UnsafePointer(now))
            #expect((86_300...86_500).contains(backdate))
            let lifetime = secondsBetween(X509_get0_notBefore(certificate), X509_get0_notAfter(certificate))
            #expect(lifetime == (730 + 1) * 86_400)
        }
    }

    @Test("Two CAs get different names, keys and serials")
    func authoritiesDiffer() throws {
        let first = try CertificateAuthority.makeEphemeral()
        let second = try CertificateAuthority.makeEphemeral()
        #expect(first.subjectDescription != second.subjectDescription)
        #expect(first.certificateDER != second.certificateDER)
        #expect(
            try verifyChain(leaf: second.certificate(for: "a.test").certificateDER, authority: first.certificateDER)
                != X509_V_OK)
    }

    @Test("$FAULTLINE_HOME wins over ~/.faultline")
    func defaultDirectory() {
        #expect(CertificateAuthority.resolveDirectory(faultlineHome: "/srv/fl", home: "/home/u") == "/srv/fl")
        #expect(CertificateAuthority.resolveDirectory(faultlineHome: "", home: "/home/u") == "/home/u/.faultline")
        #expect(CertificateAuthority.resolveDirectory(faultlineHome: nil, home: "/home/u") == "/home/u/.faultline")
    }

    @Test("A certificate without its key is an error that names both files, and nothing is overwritten")
    func certificateWithoutKey() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        _ = try CertificateAuthority.loadOrCreate(directory: temporary.path)
        let pem = try String(contentsOfFile: temporary.file("ca.pem"), encoding: .utf8)
        try FileManager.default.removeItem(atPath: temporary.file("ca-key.pem"))
        let error = try #require(throws: TLSError.self) {
            try CertificateAuthority.loadOrCreate(directory: temporary.path)
        }
        #expect(error.code == TLSError.caUnreadable)
        #expect(error.description.contains("ca-key.pem"))
        #expect(try String(contentsOfFile: temporary.file("ca.pem"), encoding: .utf8) == pem)
    }

    @Test("A key left without its certificate (interrupted creation) is replaced by a new CA")
    func keyWithoutCertificate() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        _ = try temporary.write("stale", to: "ca-key.pem")
        let authority = try CertificateAuthority.loadOrCreate(directory: temporary.path)
        let reloaded = try CertificateAuthority.loadOrCreate(directory: temporary.path)
        #expect(reloaded.certificateDER == authority.certificateDER)
    }

    @Test("Processes racing to create the CA end up with the same one (flock)")
    func concurrentCreation() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let fingerprints = LockedBox<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            if let authority = try? CertificateAuthority.loadOrCreate(directory: temporary.path) {
                fingerprints.mutate { $0.append(authority.sha256Fingerprint) }
            }
        }
        let seen = fingerprints.value
        #expect(seen.count == 4)
        #expect(Set(seen).count == 1)
    }
}

@Suite("User-supplied CA (--ca-cert, --ca-key)", .enabled(if: opensslAvailable))
struct UserAuthorityTests {
    /// Makes a CA with the openssl command line; `key` is the `-newkey` argument ("ec" means P-256).
    private func makeCA(in directory: TemporaryDirectory, key: String, extensions: [String]) throws -> (String, String)
    {
        let certificate = directory.file("user-ca.pem")
        let privateKey = directory.file("user-ca-key.pem")
        var arguments = ["req", "-x509", "-newkey", key]
        if key == "ec" { arguments += ["-pkeyopt", "ec_paramgen_curve:P-256"] }
        arguments += [
            "-nodes", "-keyout", privateKey, "-out", certificate, "-days", "30", "-subj", "/CN=User Test CA/O=Tests",
        ]
        for ext in extensions { arguments += ["-addext", ext] }
        let (status, output) = try runOpenSSL(arguments)
        try #require(status == 0, "openssl req failed: \(output)")
        return (certificate, privateKey)
    }

    @Test(
        "An EC and an RSA user CA load from PEM and sign leaves that verify against them",
        arguments: ["ec", "rsa:2048"])
    func loadsUserCA(key: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (certificatePath, keyPath) = try makeCA(
            in: directory, key: key, extensions: ["basicConstraints=critical,CA:TRUE", "keyUsage=critical,keyCertSign"])
        let authority = try CertificateAuthority.load(certificatePath: certificatePath, keyPath: keyPath)
        // `-subj /CN=.../O=...` puts CN first, so RFC 2253 order (reversed) starts with O.
        #expect(authority.subjectDescription == "O=Tests,CN=User Test CA")
        #expect(authority.certificatePath == certificatePath)
        let leaf = try authority.certificate(for: "user.test")
        #expect(try verifyChain(leaf: leaf.certificateDER, authority: authority.certificateDER) == X509_V_OK)
        // The leaf must not outlive its 30-day CA.
        try withX509(leaf.certificateDER) { leafCertificate in
            try withX509(authority.certificateDER) { caCertificate in
                #expect(ASN1_TIME_compare(X509_get0_notAfter(leafCertificate), X509_get0_notAfter(caCertificate)) <= 0)
            }
        }
    }

    @Test("A certificate that is not a CA is refused")
    func notACA() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (certificatePath, keyPath) = try makeCA(
            in: directory, key: "rsa:2048", extensions: ["basicConstraints=critical,CA:FALSE"])
        let error = try #require(throws: TLSError.self) {
            try CertificateAuthority.load(certificatePath: certificatePath, keyPath: keyPath)
        }
        #expect(error.code == TLSError.caInvalid)
        #expect(error.description.contains("not a CA"))
    }

    @Test("A key that belongs to another certificate is refused")
    func mismatchedKey() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (certificatePath, _) = try makeCA(
            in: directory, key: "rsa:2048", extensions: ["basicConstraints=critical,CA:TRUE"])
        let other = directory.file("other-key.pem")
        try #require(
            try runOpenSSL(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", other]).status
                == 0)
        let error = try #require(throws: TLSError.self) {
            try CertificateAuthority.load(certificatePath: certificatePath, keyPath: other)
        }
        #expect(error.code == TLSError.caInvalid)
        #expect(error.description.contains("does not belong"))
    }

    @Test("An encrypted key is refused without prompting; missing and non-PEM files name the file")
    func unreadableFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (certificatePath, keyPath) = try makeCA(
            in: directory, key: "rsa:2048", extensions: ["basicConstraints=critical,CA:TRUE"])
        let encrypted = directory.file("encrypted.pem")
        try #require(
            try runOpenSSL(["pkey", "-in", keyPath, "-out", encrypted, "-aes256", "-passout", "pass:secret"]).status
                == 0)
        let encryptedError = try #require(throws: TLSError.self) {
            try CertificateAuthority.load(certificatePath: certificatePath, keyPath: encrypted)
        }
        #expect(encryptedError.code == TLSError.caUnreadable)
        #expect(encryptedError.description.contains("encrypted"))

        let missing = try #require(throws: TLSError.self) {
            try CertificateAuthority.load(certificatePath: directory.file("nope.pem"), keyPath: keyPath)
        }
        #expect(missing.code == TLSError.caUnreadable)
        #expect(missing.description.contains("nope.pem"))
        #expect(missing.description.contains("No such file"))

        let garbage = try directory.write("hello", to: "garbage.pem")
        let notPEM = try #require(throws: TLSError.self) {
            try CertificateAuthority.load(certificatePath: garbage, keyPath: keyPath)
        }
        #expect(notPEM.code == TLSError.caUnreadable)
        #expect(notPEM.description.contains("garbage.pem"))
    }
}

/// Whether the extension `nid` is present and marked critical.
func isCritical(_ certificate: OpaquePointer, _ nid: Int32) -> Bool {
    let index = X509_get_ext_by_NID(certificate, nid, -1)
    guard index >= 0, let ext = X509_get_ext(certificate, index) else { return false }
    return X509_EXTENSION_get_critical(ext) == 1
}

/// OpenSSL's verdict on `leaf` with `authority` as the only trust anchor, for a TLS server.
func verifyChain(leaf: [UInt8], authority: [UInt8], host: String? = nil) throws -> Int32 {
    try withX509(leaf) { leafCertificate in
        try withX509(authority) { caCertificate in
            let store = try #require(X509_STORE_new())
            defer { X509_STORE_free(store) }
            #expect(X509_STORE_add_cert(store, caCertificate) == 1)
            let context = try #require(X509_STORE_CTX_new())
            defer { X509_STORE_CTX_free(context) }
            #expect(X509_STORE_CTX_init(context, store, leafCertificate, nil) == 1)
            X509_STORE_CTX_set_purpose(context, X509_PURPOSE_SSL_SERVER)
            if let host {
                X509_VERIFY_PARAM_set1_host(X509_STORE_CTX_get0_param(context), host, 0)
            }
            _ = X509_verify_cert(context)
            return X509_STORE_CTX_get_error(context)
        }
    }
}
