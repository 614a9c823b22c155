import FaultlineTLS
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A one-connection loopback TLS server driving a server-side `TLSConnection` with blocking
/// sockets, so a real client (curl) can talk to the engine. Every wait has a deadline.
final class LoopbackTLSServer: @unchecked Sendable {
    // @unchecked Sendable: `listener` and `port` are set in init and never change; the served
    // connection's results travel through a `LockedBox` and a semaphore.
    let listener: Int32
    let port: UInt16

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
        try #require(bound == 0)
        try #require(listen(descriptor, 4) == 0)
    }

    deinit { close(listener) }

    /// Serves one connection on a background thread; the events come back through `wait`.
    func serveOne(context: TLSServerContext, fallbackHost: String, response: String) -> Served {
        let served = Served()
        let thread = Thread { [self] in
            served.events.mutate {
                $0 = self.run(context: context, fallbackHost: fallbackHost, response: Array(response.utf8))
            }
            served.done.signal()
        }
        thread.start()
        return served
    }

    final class Served: Sendable {
        let events = LockedBox<[TLSEvent]>([])
        let done = DispatchSemaphore(value: 0)

        /// The server's events, or nil if it did not finish within `seconds`.
        func wait(seconds: Double = 15) -> [TLSEvent]? {
            done.wait(timeout: .now() + seconds) == .success ? events.value : nil
        }
    }

    private func run(context: TLSServerContext, fallbackHost: String, response: [UInt8]) -> [TLSEvent] {
        let deadline = Date().addingTimeInterval(12)
        var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 12_000) == 1 else { return [] }
        let fd = accept(listener, nil, nil)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        guard let connection = try? TLSConnection.server(context: context, fallbackHost: fallbackHost) else {
            return []
        }
        var events: [TLSEvent] = []
        var responded = false
        var buffer = [UInt8](repeating: 0, count: 65_536)
        func flush() {
            let bytes = connection.takeCiphertext()
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
                if written <= 0 { return }
                offset += written
            }
        }
        while Date() < deadline {
            flush()
            var readable = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&readable, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000))) == 1 else { break }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 {
                connection.receiveEOF()
                events += connection.advance()
                break
            }
            buffer.withUnsafeBytes { connection.receiveCiphertext(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            let new = connection.advance()
            events += new
            if new.contains(where: { if case .failed = $0 { true } else { false } }) { break }
            if !responded, Wire.plaintext(events).count >= 4,
                String(decoding: Wire.plaintext(events), as: UTF8.self).contains("\r\n\r\n")
            {
                connection.writePlaintext(response)
                connection.close()
                responded = true
            }
            if new.contains(.closeNotify) { break }
        }
        flush()
        return events
    }
}

@Suite("A real client (curl) against the server engine over loopback")
struct RealClientTests {
    static let curlAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")

    private func curl(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sS", "--max-time", "10"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    private static let response = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"

    @Test(
        "curl trusting the CA gets the answer; SNI and ALPN reach the engine", .enabled(if: curlAvailable),
        arguments: [[], ["--tls-max", "1.2"]])
    func trustingCurl(extra: [String]) throws {
        let pki = try TestPKI()
        defer { pki.directory.remove() }
        let server = try LoopbackTLSServer()
        let served = server.serveOne(context: try pki.server(), fallbackHost: "127.0.0.1", response: Self.response)
        let url = "https://real.test:\(server.port)/"
        let (status, output) = try curl(
            extra + ["--cacert", pki.caFile, "--resolve", "real.test:\(server.port):127.0.0.1", url])
        let events = try #require(served.wait())
        #expect(status == 0, "curl: \(output)")
        #expect(output == "hello")
        let info = try #require(Wire.info(events))
        #expect(info.serverName == "real.test")
        #expect(info.alpn == "http/1.1")
        #expect(info.protocolVersion == (extra.isEmpty ? "TLSv1.3" : "TLSv1.2"))
        #expect(String(decoding: Wire.plaintext(events), as: UTF8.self).hasPrefix("GET / HTTP/1.1\r\n"))
        #expect(Wire.failure(events) == nil)
    }

    @Test(
        "curl that does not trust the CA fails (exit 60) and the engine reports client-rejected-certificate",
        .enabled(if: curlAvailable))
    func untrustingCurl() throws {
        let pki = try TestPKI()
        defer { pki.directory.remove() }
        let server = try LoopbackTLSServer()
        let served = server.serveOne(context: try pki.server(), fallbackHost: "127.0.0.1", response: Self.response)
        let (status, output) = try curl(
            ["--resolve", "real.test:\(server.port):127.0.0.1", "https://real.test:\(server.port)/"])
        let events = try #require(served.wait())
        #expect(status == 60, "curl: \(output)")
        let failure = try #require(Wire.failure(events))
        #expect(failure.code == TLSError.clientRejectedCertificate)
        #expect(failure.receivedAlert == 48)
    }
}
