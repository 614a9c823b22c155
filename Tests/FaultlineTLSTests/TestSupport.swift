import COpenSSL
import FaultlineCore
import FaultlineTLS
import Foundation
import Testing

/// A fresh private directory (mkdtemp), removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/faultline-tls-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = String(cString: try #require(made))
    }

    func file(_ name: String) -> String { path + "/" + name }

    func write(_ text: String, to name: String) throws -> String {
        let path = file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// How bytes are chopped on their way between the two ends.
enum Split: CustomStringConvertible, Sendable {
    case whole
    case pieces(Int)
    case random(seed: UInt64)

    var description: String {
        switch self {
        case .whole: "whole"
        case .pieces(let size): "\(size)-byte pieces"
        case .random(let seed): "random splits (seed \(seed))"
        }
    }
}

/// A client and a server TLSConnection wired back to back through memory.
final class Wire {
    let client: TLSConnection
    let server: TLSConnection
    private(set) var clientEvents: [TLSEvent] = []
    private(set) var serverEvents: [TLSEvent] = []
    private var generator: SeededGenerator
    private let split: Split

    init(client: TLSConnection, server: TLSConnection, split: Split = .whole) {
        self.client = client
        self.server = server
        self.split = split
        if case .random(let seed) = split {
            generator = SeededGenerator(seed: seed)
        } else {
            generator = SeededGenerator(seed: 0)
        }
    }

    /// Moves ciphertext both ways until neither side has anything to send (bounded: a loop
    /// that never settles fails the test instead of hanging).
    func pump() {
        for _ in 0..<10_000 {
            let toServer = client.takeCiphertext()
            let toClient = server.takeCiphertext()
            if toServer.isEmpty, toClient.isEmpty { return }
            deliver(toServer, to: server, events: &serverEvents)
            deliver(toClient, to: client, events: &clientEvents)
        }
        Issue.record("the connections never stopped exchanging bytes")
    }

    private func deliver(_ bytes: [UInt8], to connection: TLSConnection, events: inout [TLSEvent]) {
        var offset = 0
        while offset < bytes.count {
            let size: Int
            switch split {
            case .whole: size = bytes.count
            case .pieces(let piece): size = piece
            case .random: size = Int.random(in: 1...max(1, min(4096, bytes.count)), using: &generator)
            }
            let end = min(bytes.count, offset + size)
            bytes[offset..<end].withUnsafeBytes { connection.receiveCiphertext($0) }
            events += connection.advance()
            offset = end
        }
    }

    /// All plaintext each side received so far.
    var clientPlaintext: [UInt8] { Self.plaintext(clientEvents) }
    var serverPlaintext: [UInt8] { Self.plaintext(serverEvents) }

    static func plaintext(_ events: [TLSEvent]) -> [UInt8] {
        events.flatMap { event -> [UInt8] in
            if case .plaintext(let bytes) = event { return bytes }
            return []
        }
    }

    var clientInfo: TLSSessionInfo? { Self.info(clientEvents) }
    var serverInfo: TLSSessionInfo? { Self.info(serverEvents) }
    var clientFailure: TLSError? { Self.failure(clientEvents) }
    var serverFailure: TLSError? { Self.failure(serverEvents) }

    static func info(_ events: [TLSEvent]) -> TLSSessionInfo? {
        for case .handshakeCompleted(let info) in events { return info }
        return nil
    }

    static func failure(_ events: [TLSEvent]) -> TLSError? {
        for case .failed(let error) in events { return error }
        return nil
    }
}

/// A CA, a server context using it, and a client context trusting it (through a PEM file, as
/// `--upstream-ca` would).
struct TestPKI {
    let directory: TemporaryDirectory
    let authority: CertificateAuthority
    let caFile: String

    init() throws {
        directory = try TemporaryDirectory()
        authority = try CertificateAuthority.makeEphemeral()
        caFile = try directory.write(authority.certificatePEM, to: "ca.pem")
    }

    func server(alpn: [String] = ["http/1.1"]) throws -> TLSServerContext {
        try TLSServerContext(authority: authority, alpn: alpn)
    }

    func trustingClient() throws -> TLSClientContext {
        try TLSClientContext(verify: true, extraTrustAnchorsPEMFile: caFile)
    }

    /// A wire between a client dialling `serverName` and a server whose fallback is `fallbackHost`.
    func wire(
        serverName: String = "example.test", fallbackHost: String? = nil, clientALPN: [String] = ["http/1.1"],
        serverALPN: [String] = ["http/1.1"], client: TLSClientContext? = nil, split: Split = .whole
    ) throws -> Wire {
        let clientConnection = try TLSConnection.client(
            context: client ?? trustingClient(), serverName: serverName, alpn: clientALPN)
        let serverConnection = try TLSConnection.server(
            context: server(alpn: serverALPN), fallbackHost: fallbackHost ?? serverName)
        return Wire(client: clientConnection, server: serverConnection, split: split)
    }
}

/// Parses DER into an OpenSSL `X509 *` for the duration of `body`.
func withX509<Result>(_ der: [UInt8], _ body: (OpaquePointer) throws -> Result) throws -> Result {
    let certificate = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
        var cursor = buffer.baseAddress
        return d2i_X509(nil, &cursor, buffer.count)
    }
    let parsed = try #require(certificate, "DER did not parse")
    defer { X509_free(parsed) }
    return try body(parsed)
}

/// Whether the `openssl` command line is installed (the build image has only the library):
/// tests that make certificates with it are skipped without it.
let opensslAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")

/// Runs `openssl` with `arguments`; returns its exit status and combined output.
@discardableResult
func runOpenSSL(_ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}

/// Seconds between two ASN1 times (to - from).
func secondsBetween(_ from: UnsafePointer<ASN1_TIME>?, _ to: UnsafePointer<ASN1_TIME>?) -> Int {
    var days: Int32 = 0
    var seconds: Int32 = 0
    guard ASN1_TIME_diff(&days, &seconds, from, to) == 1 else { return Int.min }
    return Int(days) * 86_400 + Int(seconds)
}
