import FaultlineCore
import FaultlineTLS
import Testing

@Suite("ClientHello peek")
struct ClientHelloPeekTests {
    let pki: TestPKI

    init() throws {
        pki = try TestPKI()
    }

    /// A real ClientHello from our client connection.
    private func hello(serverName: String = "peek.example.test", alpn: [String] = ["h2", "http/1.1"]) throws -> [UInt8]
    {
        try TLSConnection.client(context: pki.trustingClient(), serverName: serverName, alpn: alpn).takeCiphertext()
    }

    @Test("A real ClientHello yields its SNI and ALPN, and every shorter prefix asks for more bytes")
    func realClientHello() throws {
        let bytes = try hello()
        #expect(bytes.count > 100)
        #expect(ClientHelloPeek.inspect(bytes) == .tls(serverName: "peek.example.test", alpn: ["h2", "http/1.1"]))
        for length in 0..<bytes.count {
            #expect(ClientHelloPeek.inspect(Array(bytes[0..<length])) == .needMoreBytes, "prefix of \(length) bytes")
        }
        // Bytes after the ClientHello (another record) do not change the answer.
        #expect(
            ClientHelloPeek.inspect(bytes + [23, 3, 3, 0, 1, 0])
                == .tls(serverName: "peek.example.test", alpn: ["h2", "http/1.1"]))
    }

    @Test("No SNI for an IP literal, no ALPN when none is offered")
    func absentExtensions() throws {
        #expect(
            ClientHelloPeek.inspect(try hello(serverName: "127.0.0.1", alpn: [])) == .tls(serverName: nil, alpn: []))
    }

    @Test(
        "A ClientHello split across several handshake records (RFC 8446 §5.1) parses at every split point",
        arguments: [1, 50, 200])
    func fragmentedRecords(fragmentSize: Int) throws {
        let original = try hello()
        let message = Array(original[5...])
        var records: [UInt8] = []
        var offset = 0
        while offset < message.count {
            let end = min(message.count, offset + fragmentSize)
            records += [22, 3, 1, UInt8((end - offset) >> 8), UInt8((end - offset) & 0xFF)] + message[offset..<end]
            offset = end
        }
        #expect(ClientHelloPeek.inspect(records) == .tls(serverName: "peek.example.test", alpn: ["h2", "http/1.1"]))
        for length in stride(from: 0, to: records.count, by: fragmentSize == 1 ? 7 : 1) {
            #expect(ClientHelloPeek.inspect(Array(records[0..<length])) == .needMoreBytes, "prefix of \(length) bytes")
        }
        // The TLS engine accepts the same fragmented ClientHello.
        let server = try TLSConnection.server(context: pki.server(), fallbackHost: "fallback.test")
        server.receiveCiphertext(records)
        #expect(server.advance().isEmpty)
        #expect(server.certificateHost == "peek.example.test")
    }

    @Test(
        "HTTP and other plain bytes are not TLS, from the first byte",
        arguments: [
            "GET / HTTP/1.1\r\nHost: example.test\r\n\r\n", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "SSH-2.0-OpenSSH\r\n",
            "G",
        ])
    func plainBytes(text: String) {
        guard case .notTLS(let reason) = ClientHelloPeek.inspect(Array(text.utf8)) else {
            Issue.record("expected notTLS")
            return
        }
        #expect(reason.contains("not a TLS handshake record"))
    }

    @Test(
        "Malformed records and messages are not TLS",
        arguments: [
            ([22, 2, 0], "record version"),
            ([22, 3, 1, 0, 0], "outside 1...16384"),
            ([22, 3, 1, 0x40, 0x01], "outside 1...16384"),
            ([22, 3, 1, 0, 4, 2, 0, 0, 0], "not ClientHello"),
            ([22, 3, 1, 0, 4, 1, 0, 0x4E, 0x20], "over the 16384-byte limit"),
            ([22, 3, 1, 0, 5, 1, 0, 0, 0, 9], "bytes follow the ClientHello"),
            ([22, 3, 1, 0, 4, 1, 0, 0, 0], "malformed ClientHello"),
        ] as [([UInt8], String)])
    func malformed(bytes: [UInt8], expected: String) {
        guard case .notTLS(let reason) = ClientHelloPeek.inspect(bytes) else {
            Issue.record("expected notTLS for \(bytes)")
            return
        }
        #expect(reason.contains(expected), "\(reason)")
    }

    /// Found by the `client-hello` fuzz target (Fuzz/): with the message whole and its record not,
    /// the peek said TLS, and with the record's last byte it said not TLS.
    @Test("A whole ClientHello waits for the rest of its record before the verdict")
    func wholeMessageInAnUnfinishedRecord() {
        let whole = Self.record(Self.helloBody(extensions: nil))
        // The record declares one byte more than the message: a byte follows it inside the record.
        var longer = whole
        longer[4] += 1
        #expect(ClientHelloPeek.inspect(longer) == .needMoreBytes)
        guard case .notTLS(let reason) = ClientHelloPeek.inspect(longer + [0]) else {
            Issue.record("expected notTLS once the record is whole")
            return
        }
        #expect(reason.contains("bytes follow the ClientHello"))
    }

    @Test("A record of another type in the middle of a fragmented ClientHello is not TLS")
    func interleavedRecord() throws {
        let original = try hello()
        let message = Array(original[5...])
        let first = Array(message[0..<10])
        let bytes: [UInt8] = [22, 3, 1, 0, 10] + first + [21, 3, 3, 0, 2, 2, 40]
        guard case .notTLS(let reason) = ClientHelloPeek.inspect(bytes) else {
            Issue.record("expected notTLS")
            return
        }
        #expect(reason.contains("interrupts"))
    }

    @Test("Hand-built ClientHellos: TLS 1.2 without extensions; duplicate extensions; bad SNI bytes")
    func handBuilt() {
        #expect(
            ClientHelloPeek.inspect(Self.record(Self.helloBody(extensions: nil))) == .tls(serverName: nil, alpn: []))
        let sni = Self.extension(0, Self.vector16([0] + Self.vector16(Array("a.test".utf8))))
        #expect(
            ClientHelloPeek.inspect(Self.record(Self.helloBody(extensions: sni)))
                == .tls(serverName: "a.test", alpn: []))
        if case .notTLS(let reason) = ClientHelloPeek.inspect(Self.record(Self.helloBody(extensions: sni + sni))) {
            #expect(reason.contains("appears twice"))
        } else {
            Issue.record("a duplicate extension must be refused (RFC 8446 §4.2)")
        }
        let control = Self.extension(0, Self.vector16([0] + Self.vector16(Array("a\ntest".utf8))))
        if case .notTLS(let reason) = ClientHelloPeek.inspect(Self.record(Self.helloBody(extensions: control))) {
            #expect(reason.contains("printable"))
        } else {
            Issue.record("control bytes in SNI must be refused")
        }
        let alpn = Self.extension(16, Self.vector16([2] + Array("h2".utf8) + [8] + Array("http/1.1".utf8)))
        #expect(
            ClientHelloPeek.inspect(Self.record(Self.helloBody(extensions: alpn)))
                == .tls(serverName: nil, alpn: ["h2", "http/1.1"]))
        // RFC 7301 §3.1: protocol names are 1...255 bytes; an empty one is malformed.
        let emptyName = Self.extension(16, Self.vector16([0, 2] + Array("h2".utf8)))
        if case .notTLS(let reason) = ClientHelloPeek.inspect(Self.record(Self.helloBody(extensions: emptyName))) {
            #expect(reason.contains("ALPN"))
        } else {
            Issue.record("an empty ALPN protocol name must be refused")
        }
    }

    @Test("Seeded random mutations, truncations and garbage never crash and never claim more than they read")
    func fuzz() throws {
        let original = try hello()
        var generator = SeededGenerator(seed: 0x5EED)
        var outcomes = [0, 0, 0]
        for round in 0..<20_000 {
            var bytes = original
            switch round % 4 {
            case 0:
                for _ in 0..<Int.random(in: 1...6, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
            case 1:
                // Mutations in the first 60 bytes hit the length fields.
                let index = Int.random(in: 0..<60, using: &generator)
                bytes[index] = UInt8.random(in: 0...255, using: &generator)
                bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator)))
            case 2:
                bytes =
                    [22, 3, 1]
                    + (0..<Int.random(in: 0...300, using: &generator)).map { _ in
                        UInt8.random(in: 0...255, using: &generator)
                    }
            default:
                let cut = Int.random(in: 0..<bytes.count, using: &generator)
                bytes.insert(UInt8.random(in: 0...255, using: &generator), at: cut)
            }
            switch ClientHelloPeek.inspect(bytes) {
            case .needMoreBytes: outcomes[0] += 1
            case .notTLS: outcomes[1] += 1
            case .tls: outcomes[2] += 1
            }
        }
        // Every kind of answer shows up, so the mutations reach all paths.
        #expect(outcomes.allSatisfy { $0 > 100 }, "\(outcomes)")
    }

    // MARK: Building ClientHellos by hand (RFC 8446 §4.1.2)

    static func vector16(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes }

    static func `extension`(_ type: UInt16, _ data: [UInt8]) -> [UInt8] {
        [UInt8(type >> 8), UInt8(type & 0xFF)] + vector16(data)
    }

    static func helloBody(extensions: [UInt8]?) -> [UInt8] {
        var body: [UInt8] = [3, 3] + [UInt8](repeating: 7, count: 32) + [0] + vector16([0x13, 0x01]) + [1, 0]
        if let extensions { body += vector16(extensions) }
        return body
    }

    static func record(_ body: [UInt8]) -> [UInt8] {
        let message: [UInt8] = [1, 0, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
        return [22, 3, 1, UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
    }
}
