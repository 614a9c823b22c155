import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlinePosix
import FaultlineProxy
import FaultlineServer
import FaultlineTrace
import Foundation
import Synchronization
import Testing

/// The server over real loopback sockets: a `ProxyServer` in-process, a scripted origin, and a
/// blocking client.
@Suite(.serialized) struct ProxyServerTests {
    private func withProxy(
        loops: Int = 1, configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (ProxyServer, ScriptedOrigin) throws -> Void
    ) throws {
        let origin = try ScriptedOrigin()
        defer { origin.stop() }
        let trace = try TraceRecorder(output: .memory, flushInterval: .zero)
        var configuration = ServerConfiguration(
            listeners: [ListenerConfiguration(address: try SocketAddress(parsing: "127.0.0.1:0"), mode: .forward)],
            loopCount: loops)
        configure(&configuration)
        let server = ProxyServer(configuration: configuration, trace: trace)
        try server.start()
        defer { server.stop() }
        try body(server, origin)
    }

    private func events(_ server: ProxyServer) throws -> [TraceEvent] {
        server.trace.flush()
        return try TraceReader.read(server.trace.memoryContents()).events
    }

    @Test func keepAliveRequestsShareOneUpstreamConnection() throws {
        try withProxy { server, origin in
            let client = try BlockingClient(port: server.boundAddresses[0].port)
            for index in 0..<5 {
                let response = try client.get("http://127.0.0.1:\(origin.port)/item/\(index)")
                #expect(response.status == 200)
                #expect(response.body == "/item/\(index)")
            }
            #expect(origin.acceptedConnections.load(ordering: .relaxed) == 1)
            let forwarded = try events(server).filter { $0.kind == .requestForwarded }
            #expect(forwarded.map { $0.bool("reused") } == [false, true, true, true, true])
        }
    }

    @Test func pooledConnectionServesTheNextClient() throws {
        try withProxy { server, origin in
            for _ in 0..<3 {
                let client = try BlockingClient(port: server.boundAddresses[0].port)
                #expect(try client.get("http://127.0.0.1:\(origin.port)/a").status == 200)
            }
            #expect(origin.acceptedConnections.load(ordering: .relaxed) == 1)
        }
    }

    @Test func closedUpstreamPortAnswers502WithATraceEvent() throws {
        try withProxy { server, _ in
            // A port that was just bound and released has nobody listening.
            let closed = try Listener(
                address: try SocketAddress(parsing: "127.0.0.1:0"), group: EventLoopGroup(loopCount: 1),
                ids: IDGenerator()
            ) { _ in }
            let port = closed.localAddress.port
            closed.stop()
            let client = try BlockingClient(port: server.boundAddresses[0].port)
            let response = try client.get("http://127.0.0.1:\(port)/")
            #expect(response.status == 502)
            #expect(response.headers.first(name: "x-faultline-error") == "connect-failed")
            let error = try #require(try events(server).first { $0.kind == .upstreamError })
            #expect(error.int("status") == 502)
        }
    }

    @Test func aHeldUpstreamDoesNotStallOtherClients() throws {
        try withProxy { server, origin in
            let proxyPort = server.boundAddresses[0].port
            let slow = try BlockingClient(port: proxyPort)
            slow.send("GET http://127.0.0.1:\(origin.port)/hold HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(origin.heldSignal.wait(timeout: .now() + 5) == .success, "the origin saw the held request")
            let fast = try BlockingClient(port: proxyPort)
            #expect(try fast.get("http://127.0.0.1:\(origin.port)/quick").body == "/quick")
            origin.releaseHeld()
            #expect(try slow.readResponse().body == "released")
        }
    }

    @Test func responseTimeoutAnswers504() throws {
        try withProxy(configure: { $0.proxy.responseTimeout = .milliseconds(200) }) { server, origin in
            let client = try BlockingClient(port: server.boundAddresses[0].port)
            let response = try client.get("http://127.0.0.1:\(origin.port)/hold")
            #expect(response.status == 504)
            origin.releaseHeld()
        }
    }

    @Test func malformedRequestIsRefusedAndTheConnectionClosed() throws {
        try withProxy { server, origin in
            let client = try BlockingClient(port: server.boundAddresses[0].port)
            client.send(
                "GET http://127.0.0.1:\(origin.port)/ HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\nGET http://127.0.0.1:\(origin.port)/smuggled HTTP/1.1\r\n\r\n")
            #expect(try client.readResponse().status == 400)
            #expect(client.readsEOF())
            #expect(origin.requestsServed.load(ordering: .relaxed) == 0)
        }
    }

    @Test func portInUseIsAClearError() throws {
        try withProxy { server, _ in
            let taken = server.boundAddresses[0]
            let second = ProxyServer(
                configuration: ServerConfiguration(
                    listeners: [ListenerConfiguration(address: taken, mode: .forward)], loopCount: 1),
                trace: try TraceRecorder(output: .memory, flushInterval: .zero))
            #expect {
                try second.start()
            } throws: { error in
                "\(error)".contains("cannot listen on \(taken): address already in use")
            }
        }
    }

    @Test func reverseAndForwardListenersRunSideBySide() throws {
        let origin = try ScriptedOrigin()
        defer { origin.stop() }
        let upstream = UpstreamEndpoint(scheme: "http", host: "127.0.0.1", port: origin.port)
        let any = try SocketAddress(parsing: "127.0.0.1:0")
        let server = ProxyServer(
            configuration: ServerConfiguration(
                listeners: [
                    ListenerConfiguration(address: any, mode: .forward),
                    ListenerConfiguration(address: any, mode: .reverse(upstream)),
                ], loopCount: 2),
            trace: try TraceRecorder(output: .memory, flushInterval: .zero))
        try server.start()
        defer { server.stop() }
        let forward = try BlockingClient(port: server.boundAddresses[0].port)
        #expect(try forward.get("http://127.0.0.1:\(origin.port)/via-forward").body == "/via-forward")
        let reverse = try BlockingClient(port: server.boundAddresses[1].port)
        reverse.send("GET /via-reverse HTTP/1.1\r\nHost: faultline\r\n\r\n")
        #expect(try reverse.readResponse().body == "/via-reverse")
    }
}
