import COpenSSL
import FaultlineCore
import FaultlineTLS
import Foundation
import Testing

@Suite("TLS engine through memory")
struct TLSConnectionTests {
    let pki: TestPKI

    init() throws {
        pki = try TestPKI()
    }

    static let splits: [Split] = [
        .whole, .pieces(1), .pieces(7), .random(seed: 1), .random(seed: 2), .random(seed: 0xFA17),
    ]

    @Test("Client and server complete a handshake at any split of the bytes", arguments: splits)
    func handshake(split: Split) throws {
        let wire = try pki.wire(serverName: "api.example.test", split: split)
        #expect(!wire.client.isHandshakeComplete)
        wire.pump()
        #expect(wire.client.isHandshakeComplete)
        #expect(wire.server.isHandshakeComplete)
        let client = try #require(wire.clientInfo)
        let server = try #require(wire.serverInfo)
        #expect(client.protocolVersion == "TLSv1.3")
        #expect(server.protocolVersion == "TLSv1.3")
        #expect(client.cipher == server.cipher)
        #expect(!client.cipher.isEmpty)
        #expect(client.alpn == "http/1.1")
        #expect(server.alpn == "http/1.1")
        #expect(client.serverName == "api.example.test")
        #expect(server.serverName == "api.example.test")
        #expect(client.peerCertificateSubject == "CN=api.example.test,O=Faultline")
        #expect(server.peerCertificateSubject == nil)
        #expect(client.peerVerificationError == nil)
        #expect(wire.server.certificateHost == "api.example.test")
        #expect(wire.server.certificateWasMinted)
        #expect(wire.clientFailure == nil)
        #expect(wire.serverFailure == nil)
        #expect(wire.clientEvents.count == 1)  // exactly one handshakeCompleted, nothing else
        #expect(wire.serverEvents.count == 1)
    }

    @Test(
        "ALPN: the server's preference among what the client offers",
        arguments: [
            (["h2", "http/1.1"], ["http/1.1", "h2"], "h2"),
            (["http/1.1"], ["h2", "http/1.1"], "http/1.1"),
            (["http/1.1", "h2"], ["h2", "http/1.1"], "http/1.1"),
            (["h2", "http/1.1"], ["http/1.1"], "http/1.1"),
        ])
    func alpn(server: [String], client: [String], expected: String) throws {
        let wire = try pki.wire(clientALPN: client, serverALPN: server)
        wire.pump()
        #expect(wire.clientInfo?.alpn == expected)
        #expect(wire.serverInfo?.alpn == expected)
    }

    @Test("A client that offers no ALPN gets none")
    func noALPN() throws {
        let wire = try pki.wire(clientALPN: [])
        wire.pump()
        #expect(wire.clientInfo != nil)
        #expect(wire.clientInfo?.alpn == nil)
        #expect(wire.serverInfo?.alpn == nil)
    }

    @Test("ALPN with nothing in common fails both sides with no-application-protocol (RFC 7301 §3.2)")
    func alpnMismatch() throws {
        let wire = try pki.wire(clientALPN: ["h2"], serverALPN: ["http/1.1"])
        wire.pump()
        let server = try #require(wire.serverFailure)
        #expect(server.code == TLSError.noApplicationProtocol)
        #expect(server.description.contains("[h2]"))
        #expect(server.description.contains("[http/1.1]"))
        let client = try #require(wire.clientFailure)
        #expect(client.code == TLSError.noApplicationProtocol)
        #expect(client.receivedAlert == 120)
    }

    @Test("SNI reaches the server's callback and picks the leaf; the fallback host is used only without SNI")
    func sniPicksLeaf() throws {
        let wire = try pki.wire(serverName: "sni.test", fallbackHost: "connect-target.test")
        wire.pump()
        #expect(wire.server.certificateHost == "sni.test")
        #expect(wire.clientInfo?.peerCertificateSubject == "CN=sni.test,O=Faultline")

        let second = try pki.wire(serverName: "other.test", fallbackHost: "connect-target.test")
        second.pump()
        #expect(second.server.certificateHost == "other.test")
        #expect(second.clientInfo?.peerCertificateSubject == "CN=other.test,O=Faultline")

        // A third connection to the first host reuses the cached leaf.
        let third = try pki.wire(serverName: "sni.test")
        third.pump()
        #expect(third.server.certificateHost == "sni.test")
        #expect(!third.server.certificateWasMinted)
    }

    @Test(
        "A client dialling an IP sends no SNI; the server uses the fallback host and the client checks the IP SAN",
        arguments: ["127.0.0.1", "::1"])
    func ipLiteral(address: String) throws {
        let wire = try pki.wire(serverName: address, fallbackHost: address)
        wire.pump()
        #expect(wire.clientFailure == nil)
        #expect(wire.clientInfo?.serverName == nil)
        #expect(wire.serverInfo?.serverName == nil)
        #expect(wire.server.certificateHost == address)
    }

    @Test(
        "Application data flows both ways, including 1 MiB, at odd splits",
        arguments: [Split.pieces(7), .random(seed: 42)])
    func applicationData(split: Split) throws {
        let wire = try pki.wire(split: split)
        // Written before the handshake completes: held, then sent in order.
        wire.client.writePlaintext(Array("GET / HTTP/1.1\r\n".utf8))
        wire.client.writePlaintext(Array("Host: example.test\r\n\r\n".utf8))
        wire.pump()
        #expect(wire.serverPlaintext == Array("GET / HTTP/1.1\r\nHost: example.test\r\n\r\n".utf8))

        var generator = SeededGenerator(seed: 7)
        let big = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        wire.server.writePlaintext(big)
        wire.client.writePlaintext(Array("after".utf8))
        wire.pump()
        #expect(wire.clientPlaintext == big)
        #expect(wire.serverPlaintext.suffix(5) == Array("after".utf8))
        #expect(wire.clientFailure == nil)
        #expect(wire.serverFailure == nil)
    }

    @Test("close_notify both ways, with half-closure in between (RFC 8446 §6.1)")
    func closeNotify() throws {
        let wire = try pki.wire(split: .pieces(3))
        wire.pump()
        wire.client.close()
        wire.pump()
        #expect(wire.serverEvents.last == .closeNotify)
        // The server may still answer after the client's close_notify.
        wire.server.writePlaintext(Array("bye".utf8))
        wire.server.close()
        wire.pump()
        #expect(wire.clientPlaintext == Array("bye".utf8))
        #expect(wire.clientEvents.last == .closeNotify)
        // After closing, writes are dropped and nothing more comes out.
        wire.client.writePlaintext(Array("late".utf8))
        #expect(wire.client.takeCiphertext().isEmpty)
        #expect(wire.client.advance().isEmpty)
        #expect(wire.clientFailure == nil)
        #expect(wire.serverFailure == nil)
    }

    @Test(
        "A client that does not trust the CA: client-rejected-certificate on the server, a verify error on the client",
        arguments: [Split.whole, .pieces(5)])
    func untrustedCA(split: Split) throws {
        let wire = try pki.wire(serverName: "bank.test", client: TLSClientContext(), split: split)
        wire.pump()
        let server = try #require(wire.serverFailure)
        #expect(server.code == TLSError.clientRejectedCertificate)
        #expect(server.receivedAlert == 48)  // unknown_ca
        #expect(server.description.contains("does not trust the Faultline CA"))
        #expect(server.description.contains("faultline ca export"))
        #expect(server.description.contains("--cacert"))
        #expect(server.description.contains("bank.test"))
        #expect(!server.description.contains("PRIVATE"))
        let client = try #require(wire.clientFailure)
        #expect(client.code == TLSError.upstreamCertificateInvalid)
        #expect(client.verifyResult == Int(X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY))
        #expect(client.verifyDepth == 0)
        #expect(client.description.contains("unable to get local issuer certificate"))
        #expect(client.description.contains("depth 0"))
        #expect(!wire.server.isHandshakeComplete)
        #expect(!wire.client.isHandshakeComplete)
        // Failed connections stay failed and quiet.
        #expect(wire.server.advance().isEmpty)
        #expect(wire.client.advance().isEmpty)
    }

    @Test("A certificate for another address fails the client with hostname-mismatch (IP check)")
    func ipMismatch() throws {
        // No SNI for an address, so the server presents the fallback host's certificate.
        let wire = try pki.wire(serverName: "10.1.2.3", fallbackHost: "wrong.test")
        wire.pump()
        let client = try #require(wire.clientFailure)
        #expect(client.code == TLSError.hostnameMismatch)
        #expect(client.verifyResult == Int(X509_V_ERR_IP_ADDRESS_MISMATCH))
        #expect(client.description.contains("10.1.2.3"))
        #expect(client.description.contains("DNS:wrong.test"))
        // OpenSSL's client answers a name mismatch with bad_certificate.
        let server = try #require(wire.serverFailure)
        #expect(server.code == TLSError.clientRejectedCertificate)
        #expect(server.receivedAlert == 42)
        #expect(server.description.contains("most likely"))
    }

    @Test("With verification off the handshake succeeds and says what verification would have said")
    func insecureUpstream() throws {
        let wire = try pki.wire(serverName: "insecure.test", client: TLSClientContext(verify: false))
        wire.pump()
        #expect(wire.clientFailure == nil)
        let info = try #require(wire.clientInfo)
        #expect(info.peerVerificationError?.contains("unable to get local issuer certificate") == true)
    }

    @Test(
        "A non-TLS byte stream fails the server cleanly with not-tls",
        arguments: [
            "GET / HTTP/1.1\r\nHost: example.test\r\n\r\n", "CONNECT example.test:443 HTTP/1.1\r\n\r\n",
            "SSH-2.0-OpenSSH_9.6\r\n",
        ])
    func notTLS(text: String) throws {
        let server = try TLSConnection.server(context: pki.server(), fallbackHost: "example.test")
        server.receiveCiphertext(Array(text.utf8))
        let events = server.advance()
        let failure = try #require(Wire.failure(events))
        #expect(failure.code == TLSError.notTLS)
        #expect(events.count == 1)
        _ = server.takeCiphertext()
        #expect(server.advance().isEmpty)
    }

    @Test("Seeded random garbage never crashes the server and ends in a failure or a wait")
    func garbage() throws {
        var generator = SeededGenerator(seed: 99)
        let context = try pki.server()
        for round in 0..<300 {
            let server = try TLSConnection.server(context: context, fallbackHost: "g.test")
            var bytes = (0..<Int.random(in: 1...600, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            if round % 2 == 0 { bytes.replaceSubrange(0..<min(3, bytes.count), with: [22, 3, 1].prefix(bytes.count)) }
            server.receiveCiphertext(bytes)
            let events = server.advance()
            _ = server.takeCiphertext()
            server.receiveEOF()
            let after = server.advance()
            #expect((events + after).allSatisfy { if case .failed = $0 { true } else { false } })
            #expect(Wire.failure(events + after) != nil)
        }
    }

    @Test("Mutated ClientHellos never crash the server")
    func mutatedClientHellos() throws {
        var generator = SeededGenerator(seed: 2024)
        let context = try pki.server()
        let client = try TLSConnection.client(
            context: pki.trustingClient(), serverName: "fuzz.test", alpn: ["h2", "http/1.1"])
        let hello = client.takeCiphertext()
        for _ in 0..<300 {
            var bytes = hello
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            let server = try TLSConnection.server(context: context, fallbackHost: "fuzz.test")
            server.receiveCiphertext(bytes)
            _ = server.advance()
            _ = server.takeCiphertext()
            server.receiveEOF()
            _ = server.advance()
        }
    }

    @Test("EOF mid-handshake is handshake-interrupted; EOF after it without close_notify is unexpected-eof")
    func eof() throws {
        let early = try pki.wire()
        let hello = early.client.takeCiphertext()
        early.server.receiveCiphertext(hello)
        _ = early.server.advance()
        early.server.receiveEOF()
        let interrupted = try #require(Wire.failure(early.server.advance()))
        #expect(interrupted.code == TLSError.handshakeInterrupted)
        #expect(interrupted.description.contains("after Faultline presented its certificate"))

        let late = try pki.wire()
        late.pump()
        late.client.writePlaintext(Array("partial".utf8))
        late.server.receiveCiphertext(late.client.takeCiphertext())
        late.server.receiveEOF()
        let events = late.server.advance()
        #expect(events.first == .plaintext(Array("partial".utf8)))
        #expect(Wire.failure(events)?.code == TLSError.unexpectedEOF)
    }

    @Test("Closing before the handshake completes abandons the connection quietly")
    func closeDuringHandshake() throws {
        let wire = try pki.wire()
        wire.client.writePlaintext(Array("never".utf8))
        wire.client.close()
        #expect(wire.client.advance().isEmpty)
        #expect(!wire.client.isHandshakeComplete)
    }

    @Test("A server without SNI and an unusable fallback host fails with certificate-unavailable")
    func noCertificate() throws {
        let client = try TLSConnection.client(context: pki.trustingClient(), serverName: "127.0.0.1", alpn: [])
        let server = try TLSConnection.server(context: pki.server(), fallbackHost: "not a host")
        server.receiveCiphertext(client.takeCiphertext())
        let failure = try #require(Wire.failure(server.advance()))
        #expect(failure.code == TLSError.certificateUnavailable)
        #expect(failure.description.contains("not a host"))
    }

    @Test("Bad arguments are refused up front")
    func badArguments() throws {
        #expect(throws: TLSError.self) {
            try TLSConnection.client(context: pki.trustingClient(), serverName: "a b", alpn: [])
        }
        #expect(throws: TLSError.self) {
            try TLSConnection.client(context: pki.trustingClient(), serverName: "ok.test", alpn: [""])
        }
        #expect(throws: TLSError.self) {
            try TLSServerContext(authority: pki.authority, alpn: [String(repeating: "x", count: 256)])
        }
        let missing = try #require(throws: TLSError.self) {
            try TLSClientContext(extraTrustAnchorsPEMFile: pki.directory.file("absent.pem"))
        }
        #expect(missing.code == TLSError.trustAnchorsUnreadable)
        #expect(missing.description.contains("absent.pem"))
    }
}
