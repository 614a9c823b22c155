import COpenSSL
import FaultlineTLS
import Foundation
import Testing

/// A TLS server written directly against OpenSSL (not FaultlineTLS) with a certificate made by
/// the `openssl` command line, through memory BIOs: an independent peer for the client side.
final class PlainOpenSSLServer {
    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private let inbound: OpaquePointer
    private let outbound: OpaquePointer
    private(set) var handshakeDone = false

    init(certificateFile: String, keyFile: String) throws {
        context = try #require(SSL_CTX_new(TLS_server_method()))
        try #require(SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1)
        try #require(SSL_CTX_use_PrivateKey_file(context, keyFile, SSL_FILETYPE_PEM) == 1)
        ssl = try #require(SSL_new(context))
        inbound = try #require(BIO_new(BIO_s_mem()))
        outbound = try #require(BIO_new(BIO_s_mem()))
        _ = faultline_BIO_set_mem_eof_return(inbound, -1)
        SSL_set_bio(ssl, inbound, outbound)
        SSL_set_accept_state(ssl)
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    func receive(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        _ = bytes.withUnsafeBytes { BIO_write(inbound, $0.baseAddress, Int32($0.count)) }
        if !handshakeDone {
            handshakeDone = SSL_do_handshake(ssl) == 1
            ERR_clear_error()
        }
    }

    func take() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(outbound)))
        guard !bytes.isEmpty else { return [] }
        _ = bytes.withUnsafeMutableBytes { BIO_read(outbound, $0.baseAddress, Int32($0.count)) }
        return bytes
    }

    /// Pumps bytes between `client` and this server until both are quiet; returns the client's events.
    func exchange(with client: TLSConnection) -> [TLSEvent] {
        var events: [TLSEvent] = []
        for _ in 0..<1000 {
            let toServer = client.takeCiphertext()
            receive(toServer)
            let toClient = take()
            if toServer.isEmpty, toClient.isEmpty { return events }
            if !toClient.isEmpty {
                client.receiveCiphertext(toClient)
                events += client.advance()
            }
        }
        Issue.record("the exchange never settled")
        return events
    }
}

@Suite("Against peers that are not FaultlineTLS", .enabled(if: opensslAvailable))
struct IndependentPeerTests {
    /// A CA and a leaf for `leafHost` made with the openssl command line.
    private func makeOpenSSLPKI(_ directory: TemporaryDirectory, leafHost: String) throws -> (
        ca: String, cert: String, key: String
    ) {
        let ca = directory.file("ca.pem")
        let caKey = directory.file("ca-key.pem")
        let cert = directory.file("leaf.pem")
        let key = directory.file("leaf-key.pem")
        let csr = directory.file("leaf.csr")
        let ext = try directory.write("subjectAltName=DNS:\(leafHost)\nextendedKeyUsage=serverAuth\n", to: "leaf.ext")
        for arguments in [
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", caKey,
                "-out", ca,
                "-days", "2", "-subj", "/CN=Independent Test CA", "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign",
            ],
            [
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", csr,
                "-subj", "/CN=\(leafHost)",
            ],
            [
                "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", caKey, "-CAcreateserial", "-out", cert, "-days", "2",
                "-extfile", ext,
            ],
        ] {
            let (status, output) = try runOpenSSL(arguments)
            try #require(status == 0, "openssl \(arguments[0]) failed: \(output)")
        }
        return (ca, cert, key)
    }

    @Test("Our client verifies a certificate from another CA and checks the DNS name (hostname-mismatch otherwise)")
    func dnsHostnameVerification() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let files = try makeOpenSSLPKI(directory, leafHost: "origin.test")
        let trusting = try TLSClientContext(extraTrustAnchorsPEMFile: files.ca)

        let good = try TLSConnection.client(context: trusting, serverName: "origin.test", alpn: [])
        let goodEvents = try PlainOpenSSLServer(certificateFile: files.cert, keyFile: files.key).exchange(with: good)
        #expect(Wire.failure(goodEvents) == nil)
        #expect(Wire.info(goodEvents)?.peerCertificateSubject == "CN=origin.test")

        let wrong = try TLSConnection.client(context: trusting, serverName: "evil.test", alpn: [])
        let wrongEvents = try PlainOpenSSLServer(certificateFile: files.cert, keyFile: files.key).exchange(with: wrong)
        let failure = try #require(Wire.failure(wrongEvents))
        #expect(failure.code == TLSError.hostnameMismatch)
        #expect(failure.verifyResult == Int(X509_V_ERR_HOSTNAME_MISMATCH))
        #expect(failure.verifyDepth == 0)
        #expect(failure.description.contains("evil.test"))
        #expect(failure.description.contains("DNS:origin.test"))
        #expect(!wrong.isHandshakeComplete)

        // Partial wildcards and suffix tricks do not pass either.
        let suffix = try TLSConnection.client(context: trusting, serverName: "origin.test.evil.test", alpn: [])
        let suffixEvents = try PlainOpenSSLServer(certificateFile: files.cert, keyFile: files.key).exchange(
            with: suffix)
        #expect(Wire.failure(suffixEvents)?.code == TLSError.hostnameMismatch)
    }

    @Test("Without the extra anchor the same server is upstream-certificate-invalid (system store only)")
    func systemStoreOnly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let files = try makeOpenSSLPKI(directory, leafHost: "origin.test")
        let client = try TLSConnection.client(context: TLSClientContext(), serverName: "origin.test", alpn: [])
        let events = try PlainOpenSSLServer(certificateFile: files.cert, keyFile: files.key).exchange(with: client)
        let failure = try #require(Wire.failure(events))
        #expect(failure.code == TLSError.upstreamCertificateInvalid)
        #expect(failure.description.contains("origin.test"))
    }
}
