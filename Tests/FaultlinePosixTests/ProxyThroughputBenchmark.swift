import FaultlineCore
import Testing

@testable import FaultlinePosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opt-in figure, not a pass/fail check (speed is never asserted by unit tests):
/// `FAULTLINE_POSIX_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter ProxyThroughput`
///
/// In one process: a load generator (1 loop, N keep-alive connections, one request in flight per
/// connection) → a byte-forwarding proxy (its own group) → a backend that answers each
/// fixed-size request with a fixed-size response. Every request crosses four sockets and the
/// proxy does what a real proxy's I/O layer does per request: two reads, two writes, no
/// allocation. Client and backend share the machine's cores with the proxy, so the figure is a
/// floor for the proxy's I/O ceiling.
@Suite(.serialized, .enabled(if: getenv("FAULTLINE_POSIX_BENCH") != nil)) struct ProxyThroughputBenchmark {
    static let request = Array("GET /bench HTTP/1.1\r\nHost: backend\r\nUser-Agent: faultline-bench\r\n\r\n".utf8)
    static let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok".utf8)

    /// Answers every complete request with the response.
    final class Backend: StreamConnectionDelegate {
        private var pending = 0
        private var selfReference: Backend?
        init() { selfReference = self }
        func streamConnection(_ connection: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
            pending += bytes.count
            while pending >= ProxyThroughputBenchmark.request.count {
                pending -= ProxyThroughputBenchmark.request.count
                ProxyThroughputBenchmark.response.withUnsafeBytes { connection.write($0) }
            }
        }
        func streamConnectionDidReadEOF(_ connection: StreamConnection) { connection.close() }
        func streamConnectionDidDrainOutbound(_ connection: StreamConnection) {}
        func streamConnection(_ connection: StreamConnection, didCloseWith error: SystemError?) { selfReference = nil }
    }

    /// Forwards bytes one way, pausing the source while the sink has a backlog.
    final class Pipe: StreamConnectionDelegate {
        weak var peer: StreamConnection?
        var peerPipe: Pipe?
        func streamConnection(_ connection: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
            guard let peer else { return }
            peer.write(bytes)
            if peer.outboundBufferedBytes > 256 << 10 { connection.setReadingPaused(true) }
        }
        func streamConnectionDidReadEOF(_ connection: StreamConnection) { peer?.shutdownWrite() }
        func streamConnectionDidDrainOutbound(_ connection: StreamConnection) { peer?.setReadingPaused(false) }
        func streamConnection(_ connection: StreamConnection, didCloseWith error: SystemError?) {
            peer?.close()
            peerPipe = nil
        }
    }

    /// One client connection: send, wait for the whole response, repeat until told to stop.
    final class Client: StreamConnectionDelegate {
        let completed: Shared<Int>
        var received = 0
        var done = 0
        var stopped = false
        init(completed: Shared<Int>) { self.completed = completed }
        func streamConnection(_ connection: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
            received += bytes.count
            while received >= ProxyThroughputBenchmark.response.count {
                received -= ProxyThroughputBenchmark.response.count
                done += 1
                if stopped {
                    completed.update { $0 += done }
                    connection.close()
                    return
                }
                ProxyThroughputBenchmark.request.withUnsafeBytes { connection.write($0) }
            }
        }
        func streamConnectionDidReadEOF(_ connection: StreamConnection) {}
        func streamConnectionDidDrainOutbound(_ connection: StreamConnection) {}
        func streamConnection(_ connection: StreamConnection, didCloseWith error: SystemError?) {}
    }

    /// `Client`s live in a loop-confined list; this box carries it into loop tasks.
    final class ClientList: @unchecked Sendable {
        // Only touched on the client loop's thread.
        var clients: [Client] = []
    }

    @Test(arguments: [1, 2])
    func proxiedRequestsPerSecond(proxyLoops: Int) throws {
        let backendGroup = try EventLoopGroup(loopCount: 1, namePrefix: "bench-backend")
        let proxyGroup = try EventLoopGroup(loopCount: proxyLoops, namePrefix: "bench-proxy")
        let clientGroup = try EventLoopGroup(loopCount: 1, namePrefix: "bench-client")
        defer {
            clientGroup.shutdown()
            proxyGroup.shutdown()
            backendGroup.shutdown()
        }
        let ids = IDGenerator()
        let backend = try Listener(address: SocketAddress(parsing: "127.0.0.1:0"), group: backendGroup, ids: ids) {
            connection in
            let handler = Backend()  // keeps itself alive until closed
            connection.delegate = handler
            connection.start()
        }
        defer { backend.stop() }
        let backendAddress = backend.localAddress
        let proxy = try Listener(address: SocketAddress(parsing: "127.0.0.1:0"), group: proxyGroup, ids: ids) {
            downstream in
            let toUpstream = Pipe()
            downstream.delegate = toUpstream
            StreamConnection.connect(
                to: [backendAddress], id: ConnectionID(ids.next()), on: downstream.loop, timeout: .seconds(5)
            ) { result in
                guard case .success(let upstream) = result else {
                    downstream.close()
                    return
                }
                let toDownstream = Pipe()
                toUpstream.peer = upstream
                toDownstream.peer = downstream
                // The pipes keep each other alive until either side closes.
                toUpstream.peerPipe = toDownstream
                toDownstream.peerPipe = toUpstream
                upstream.delegate = toDownstream
                upstream.start()
                downstream.start()
            }
        }
        defer { proxy.stop() }

        let connections = 64
        let completed = Shared(0)
        let list = ClientList()
        let clientLoop = clientGroup.loops[0]
        let proxyAddress = proxy.localAddress
        let connected = Shared(0)
        try onLoop(clientLoop) {
            for _ in 0..<connections {
                StreamConnection.connect(
                    to: [proxyAddress], id: ConnectionID(ids.next()), on: clientLoop, timeout: .seconds(5)
                ) { result in
                    guard case .success(let connection) = result else { return }
                    let client = Client(completed: completed)
                    list.clients.append(client)
                    connection.delegate = client
                    connection.start()
                    connected.update { $0 += 1 }
                    ProxyThroughputBenchmark.request.withUnsafeBytes { connection.write($0) }
                }
            }
        }
        try connected.wait("all clients connected") { $0 == connections }
        // Warm up, then measure a window by counting completions on the client loop.
        let warmup = try onLoop(clientLoop) { list.clients.reduce(0) { $0 + $1.done } }
        let start = MonotonicInstant.now()
        let seconds = 3.0
        let window = Promise<Void>()
        let gate = try ThreadSpawner.spawn(name: "bench-timer") {
            var spec = timespec(tv_sec: Int(seconds), tv_nsec: 0)
            nanosleep(&spec, nil)  // the measurement window itself, not ordering
            window.fulfill(())
        }
        try window.wait(seconds: seconds + 10)
        ThreadSpawner.join(gate)
        let total = try onLoop(clientLoop) { () -> Int in
            for client in list.clients { client.stopped = true }
            return list.clients.reduce(0) { $0 + $1.done }
        }
        let elapsed = start.duration(to: .now())
        let elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = Double(total - warmup) / elapsedSeconds
        print(
            "proxy loops: \(proxyLoops), connections: \(connections), requests: \(total - warmup), "
                + "rate: \(Int(rate)) proxied requests/s")
        #expect(total > warmup)
        _ = completed
    }
}
