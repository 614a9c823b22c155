import FaultlineCore
import Testing

@testable import FaultlinePosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct ListenerTests {
    @Test func bindsAnEphemeralPortAndRefusesASecondListenerOnIt() throws {
        try withGroup { group in
            let first = try makeEchoListener(address: SocketAddress(parsing: "127.0.0.1:0"), group: group)
            defer { first.stop() }
            #expect(first.localAddress.port != 0)
            #expect(first.localAddress.ipAddress == "127.0.0.1")
            let error = try #require(throws: SystemError.self) {
                _ = try makeEchoListener(address: first.localAddress, group: group)
            }
            #expect(error.isAddressInUse)
            #expect(error.call == "bind")
        }
    }

    @Test func stopFreesThePort() throws {
        try withGroup { group in
            let first = try makeEchoListener(address: SocketAddress(parsing: "127.0.0.1:0"), group: group)
            let address = first.localAddress
            // Accept one connection first, so the loops really were using the socket.
            let client = try BlockingClient(connectingTo: address)
            try client.write([7])
            #expect(try client.read(exactly: 1) == [7])
            first.stop()
            first.stop()  // idempotent
            let second = try makeEchoListener(address: address, group: group)
            defer { second.stop() }
            #expect(second.localAddress == address)
        }
    }

    @Test(arguments: [Listener.Balancing.roundRobin, .acceptingLoop])
    func servesManyConcurrentConnectionsAcrossTheLoops(balancing: Listener.Balancing) throws {
        try withGroup(loops: 2) { group in
            let served = Shared<[String]>([])
            let listener = try makeEchoListener(
                address: SocketAddress(parsing: "127.0.0.1:0"), group: group, balancing: balancing, served: served)
            defer { listener.stop() }
            let count = 100
            // All connected before any is served, so the listener sees a burst.
            let clients = try (0..<count).map { _ in try BlockingClient(connectingTo: listener.localAddress) }
            for (index, client) in clients.enumerated() {
                try client.write(pattern(count: 1000, seed: UInt8(index)))
            }
            for (index, client) in clients.enumerated() {
                #expect(try client.read(exactly: 1000) == pattern(count: 1000, seed: UInt8(index)))
                client.shutdownWrite()
                #expect(try client.readToEOF().isEmpty)
            }
            let loops = served.value
            #expect(loops.count == count)
            #expect(Set(loops).isSubset(of: Set(group.loops.map(\.name))))
            let perLoop = Dictionary(grouping: loops, by: { $0 }).mapValues(\.count)
            print("connections per loop with \(balancing): \(perLoop.sorted { $0.key < $1.key })")
            if balancing == .roundRobin {
                #expect(perLoop.values.allSatisfy { $0 == count / 2 })
            }
        }
    }

    @Test func listensOnIPv6Loopback() throws {
        try withGroup { group in
            let listener = try makeEchoListener(address: SocketAddress(parsing: "[::1]:0"), group: group)
            defer { listener.stop() }
            #expect(listener.localAddress.ipAddress == "::1")
            let client = try BlockingClient(connectingTo: listener.localAddress)
            try client.write(Array("six".utf8))
            #expect(try client.read(exactly: 3) == Array("six".utf8))
        }
    }

    @Test func acceptedConnectionsHaveAddressesIDsAndNoDelay() throws {
        try withGroup { group in
            let server = try ServerHarness(group: group)
            defer { server.listener.stop() }
            let client = try server.client()
            let side = try server.connection()
            let (local, remote, id, noDelay) = try side.use { connection in
                var value: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(connection.fd, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &length)
                return (connection.localAddress, connection.remoteAddress, connection.id, value != 0)
            }
            #expect(local == server.listener.localAddress)
            #expect(remote?.ipAddress == "127.0.0.1")
            #expect(remote?.port != server.listener.localAddress.port)
            #expect(id.rawValue >= 1)
            #expect(noDelay)
            _ = client
        }
    }

    @Test func stoppingFromALoopThreadDoesNotDeadlock() throws {
        try withGroup { group in
            let listener = try makeEchoListener(address: SocketAddress(parsing: "127.0.0.1:0"), group: group)
            let address = listener.localAddress
            try onLoop(group.loops[0]) { listener.stop() }
            // The last loop to let go closes the socket; then the port binds again.
            var rebound: Listener?
            for _ in 0..<1000 where rebound == nil {
                rebound = try? makeEchoListener(address: address, group: group)
                if rebound == nil { _ = try onLoop(group.loops[1]) { 0 } }
            }
            let second = try #require(rebound)
            second.stop()
        }
    }
}

@Suite struct ListenerBackoffTests {
    /// Running out of descriptors must not spin the loop: accepting pauses (no read interest in
    /// the kernel), the error is reported, and accepting resumes after `retryDelay`.
    @Test func tooManyOpenFilesPausesAcceptingThenResumes() throws {
        try withGroup(loops: 1) { group in
            let errors = Shared<[SystemError]>([])
            let accepted = Shared(0)
            let listener = try Listener(
                address: SocketAddress(parsing: "127.0.0.1:0"), group: group, ids: IDGenerator(),
                retryDelay: .milliseconds(50), onError: { error, _ in errors.update { $0.append(error) } }
            ) { connection in
                accepted.update { $0 += 1 }
                connection.close()
            }
            defer { listener.stop() }
            let acceptor = listener.acceptors[0]
            let pausedInterest = try onLoop(acceptor.loop) { () -> SelectorInterest in
                acceptor.value.handleAcceptError(SystemError(errno: EMFILE, call: "accept"))
                return acceptor.value.interest
            }
            #expect(pausedInterest == .none)
            #expect(errors.value.map(\.errno) == [EMFILE])
            // A connection waiting in the backlog is picked up once the pause is over.
            let client = try BlockingClient(connectingTo: listener.localAddress)
            try accepted.wait("the accept after the pause") { $0 == 1 }
            #expect(try onLoop(acceptor.loop) { acceptor.value.interest } == .read)
            _ = client
        }
    }
}
