import FaultlineCore
import FaultlineHTTP1
import FaultlinePosix
import FaultlineProxy
import FaultlineServer
import FaultlineTrace
import Foundation
import Synchronization
import Testing

/// `ServerConfiguration.maximumConnections` over real loopback sockets.
@Suite(.serialized) struct ConnectionLimitTests {
    private func events(_ server: ProxyServer) throws -> [TraceEvent] {
        server.trace.flush()
        return try TraceReader.read(server.trace.memoryContents()).events
    }

    /// Polls the trace until `predicate` holds; fails the test after 5 seconds.
    private func waitForTrace(
        _ server: ProxyServer, _ what: String, _ predicate: ([TraceEvent]) -> Bool
    ) throws {
        let deadline = Date().addingTimeInterval(5)
        while !(try predicate(events(server))) {
            guard Date() < deadline else {
                Issue.record("no \(what) in the trace within 5 s")
                return
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    @Test func aConnectionOverTheLimitGets503AndTheNextOneIsServedOnceAPlaceIsFree() throws {
        let origin = try ScriptedOrigin()
        defer { origin.stop() }
        var configuration = ServerConfiguration(
            listeners: [ListenerConfiguration(address: try SocketAddress(parsing: "127.0.0.1:0"), mode: .forward)],
            loopCount: 2)
        configuration.maximumConnections = 1
        let server = ProxyServer(configuration: configuration, trace: try TraceRecorder(output: .memory))
        try server.start()
        defer { server.stop() }
        let port = server.boundAddresses[0].port
        let url = "http://127.0.0.1:\(origin.port)/a"

        var first: BlockingClient? = try BlockingClient(port: port)
        #expect(try first?.get(url).status == 200)
        // The first connection stays open (keep-alive): the second is over the limit.
        let second = try BlockingClient(port: port)
        let refused = try second.get(url)
        #expect(refused.status == 503)
        #expect(refused.headers.first(name: "connection") == "close")
        #expect(refused.headers.first(name: "x-faultline-error") == "too-many-connections")
        #expect(second.readsEOF())
        #expect(origin.requestsServed.load(ordering: .relaxed) == 1, "the refused request reached no upstream")
        let rejected = try #require(try events(server).first { $0.kind == .connectionRejected })
        #expect(rejected.string("answer") == "503" && rejected.string("reason") == "max-connections")
        #expect(rejected.int("limit") == 1)
        #expect(try events(server).filter { $0.kind == .requestReceived }.count == 1)

        first = nil
        try waitForTrace(server, "connection.closed of the first client") { events in
            events.contains { $0.kind == .connectionClosed }
        }
        let third = try BlockingClient(port: port)
        #expect(try third.get(url).status == 200)
    }

    @Test func theDefaultLimitKeepsAReserveAndCountsTwoDescriptorsPerConnection() {
        #expect(ServerConfiguration.defaultMaximumConnections(openFiles: 1024) == 480)
        #expect(ServerConfiguration.defaultMaximumConnections(openFiles: 64) == 15)
        #expect(ServerConfiguration.defaultMaximumConnections(openFiles: 10) == 1)
        #expect(ServerConfiguration.defaultMaximumConnections(openFiles: 1 << 20) == 507_888)
    }
}
