import FaultlineCore
import Testing

@testable import FaultlinePosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct StreamConnectionTests {
    /// Connects with our own connector to an echo listener and round-trips 1 MiB.
    @Test(arguments: ["127.0.0.1:0", "[::1]:0"])
    func echoesOverLoopback(address: String) throws {
        try withGroup { group in
            let listener = try makeEchoListener(address: SocketAddress(parsing: address), group: group)
            defer { listener.stop() }
            let data = pattern(count: 1 << 20)
            let loop = group.next()
            let delegate = RecordingDelegate(retainUntilClosed: true)
            let target = listener.localAddress
            let connected = Promise<String>()
            try onLoop(loop) {
                StreamConnection.connect(to: [target], id: ConnectionID(1), on: loop, timeout: .seconds(5)) { result in
                    switch result {
                    case .success(let connection):
                        connected.fulfill("\(connection.remoteAddress?.description ?? "?")")
                        connection.delegate = delegate
                        delegate.onRead = { connection, _ in
                            if delegate.record.value.byteCount == data.count { connection.close() }
                        }
                        connection.start()
                        connection.write(data)
                    case .failure(let error):
                        connected.fulfill("failed: \(error)")
                    }
                }
            }
            #expect(try connected.wait() == target.description)
            try delegate.record.wait(seconds: 20, "the echo") { !$0.closes.isEmpty }
            let record = delegate.record.value
            #expect(record.received == data)
            #expect(record.closes.count == 1)
            #expect(record.callbacksAfterClose == 0)
        }
    }

    @Test func aLargeWriteToASlowReaderIsBufferedAndFullyDelivered() throws {
        try withGroup { group in
            let data = pattern(count: 32 << 20, seed: 9)
            let server = try ServerHarness(group: group)
            defer { server.listener.stop() }
            let client = try server.client()
            let side = try server.connection()
            // A started connection, so the write must arm write interest by itself.
            let buffered = try side.use { connection in
                connection.write(data)
                return connection.outboundBufferedBytes
            }
            // The client has not read a byte yet, so nearly all of it must be queued.
            #expect(buffered > 16 << 20)
            #expect(side.delegate.record.value.drains == 0)
            let received = try client.read(exactly: data.count)
            #expect(received == data)
            try side.delegate.record.wait("didDrainOutbound") { $0.drains == 1 }
            #expect(try side.use { $0.outboundBufferedBytes } == 0)
            // Write interest is dropped once drained, or EPOLLOUT would spin the loop.
            #expect(try side.use { $0.registeredInterest } == .read)
            try side.use { $0.close() }
        }
    }

    @Test func writesBeforeStartAreFlushedToo() throws {
        try withGroup { group in
            let data = pattern(count: 8 << 20, seed: 4)
            let server = try ServerHarness(group: group) { connection, _ in connection.write(data) }
            defer { server.listener.stop() }
            let client = try server.client()
            #expect(try client.read(exactly: data.count) == data)
            try server.connection().delegate.record.wait("didDrainOutbound") { $0.drains == 1 }
        }
    }

    @Test func pausedReadingPushesBackOnThePeer() throws {
        try withGroup { group in
            let readsWhenResumed = Shared<Int?>(nil)
            let server = try ServerHarness(group: group) { _, delegate in
                delegate.keepsReceivedBytes = false
                delegate.onRead = { connection, _ in
                    if delegate.record.value.readCalls == 1 { connection.setReadingPaused(true) }
                }
            }
            defer { server.listener.stop() }
            let client = try server.client()
            try client.write([1])
            let side = try server.connection()
            try side.delegate.record.wait("the first read") { $0.readCalls == 1 }
            #expect(try side.use { $0.isReadingPaused })
            // Not just ignoring readiness: a level-triggered read interest left in the kernel
            // would spin the loop while the peer's data waits.
            #expect(try side.use { !$0.registeredInterest.contains(.read) })
            // With reading paused, the kernel buffers fill and the peer's writes would block.
            #expect(fcntl(client.fd, F_SETFL, fcntl(client.fd, F_GETFL, 0) | O_NONBLOCK) == 0)
            let chunk = pattern(count: 65536)
            var sent = 1
            var blocked = false
            while sent < 256 << 20 {
                let written = chunk.withUnsafeBytes { send(client.fd, $0.baseAddress, $0.count, noSignal) }
                if written < 0 {
                    #expect(errno == EAGAIN || errno == EWOULDBLOCK)
                    blocked = true
                    break
                }
                sent += written
            }
            #expect(blocked, "the peer never saw backpressure after \(sent) bytes")
            try side.use { connection in
                readsWhenResumed.update { $0 = side.delegate.record.value.readCalls }
                connection.setReadingPaused(false)
            }
            #expect(readsWhenResumed.value == 1, "didRead was called while paused")
            try side.delegate.record.wait("all bytes after resuming") { $0.byteCount == sent }
            try side.use { $0.close() }
        }
    }

    @Test func closingFromInsideDidReadStopsEverything() throws {
        try withGroup { group in
            let server = try ServerHarness(group: group) { _, delegate in
                delegate.onRead = { connection, _ in
                    connection.close()
                    // Everything after close is a no-op, not a crash or a callback.
                    connection.write([1, 2, 3])
                    connection.setReadingPaused(true)
                    connection.shutdownWrite()
                    connection.closeAfterFlush()
                    connection.close()
                }
            }
            defer { server.listener.stop() }
            let client = try server.client()
            // Far more than one read's worth, so the read loop would go round again. The server
            // closes with input unread, so the rest of this write may well fail with EPIPE.
            try? client.write(pattern(count: 1 << 20))
            let side = try server.connection()
            try side.delegate.record.wait("the close") { !$0.closes.isEmpty }
            #expect(!(try side.use { $0.isOpen }))
            do {
                _ = try client.readToEOF()
            } catch let error as SystemError {
                // Closing with unread input makes the kernel send RST instead of FIN.
                #expect(error.isConnectionReset)
            }
            let record = side.delegate.record.value
            #expect(record.readCalls == 1)
            #expect(record.closes.count == 1)
            #expect(record.closes[0] == nil)
            #expect(record.callbacksAfterClose == 0)
        }
    }

    @Test func resetAndCloseGivesThePeerConnectionReset() throws {
        try withGroup { group in
            let server = try ServerHarness(group: group) { _, delegate in
                delegate.onRead = { connection, _ in connection.resetAndClose() }
            }
            defer { server.listener.stop() }
            let client = try server.client()
            try client.write([42])
            let error = try #require(throws: SystemError.self) { _ = try client.readToEOF() }
            #expect(error.isConnectionReset)
            // The RST leaves before the delegate hears about the close, so wait for that too.
            let side = try server.connection()
            try side.delegate.record.wait("the close") { !$0.closes.isEmpty }
            #expect(side.delegate.record.value.closes == [nil])
        }
    }

    @Test func eofIsDeliveredAndWeCanStillWrite() throws {
        try withGroup { group in
            let server = try ServerHarness(group: group) { _, delegate in
                delegate.onEOF = { connection in
                    connection.write(Array("bye".utf8))
                    connection.closeAfterFlush()
                }
            }
            defer { server.listener.stop() }
            let client = try server.client()
            try client.write(Array("hello".utf8))
            client.shutdownWrite()
            #expect(try client.readToEOF() == Array("bye".utf8))
            let side = try server.connection()
            try side.delegate.record.wait("the close") { !$0.closes.isEmpty }
            let record = side.delegate.record.value
            #expect(record.received == Array("hello".utf8))
            #expect(record.eofs == 1)
            #expect(record.closes == [nil])
        }
    }

    @Test func aPeerResetClosesWithTheErrorOnce() throws {
        try withGroup { group in
            let server = try ServerHarness(group: group)
            defer { server.listener.stop() }
            let client = try server.client()
            try client.write([1])
            let side = try server.connection()
            try side.delegate.record.wait("the first byte") { $0.byteCount == 1 }
            client.abort()
            try side.delegate.record.wait("the close") { !$0.closes.isEmpty }
            let record = side.delegate.record.value
            #expect(record.closes.count == 1)
            let error = try #require(record.closes[0])
            #expect(error.isConnectionReset)
        }
    }

    @Test func writeErrorsCloseOnTheNextTickNotInsideWrite() throws {
        try withGroup { group in
            let server = try ServerHarness(group: group) { connection, _ in connection.setReadingPaused(true) }
            defer { server.listener.stop() }
            let client = try server.client()
            let side = try server.connection()
            // Abort the client: the server learns about it only when it touches the socket.
            client.abort()
            let chunk = pattern(count: 256 << 10)
            let closesDuringWrite = try side.use { connection -> Int in
                for _ in 0..<64 where side.delegate.record.value.closes.isEmpty {
                    connection.write(chunk)
                }
                return side.delegate.record.value.closes.count
            }
            #expect(closesDuringWrite == 0)
            try side.delegate.record.wait("the close") { !$0.closes.isEmpty }
            let record = side.delegate.record.value
            #expect(record.closes.count == 1)
            let error = try #require(record.closes[0])
            #expect(error.isConnectionReset || error.isBrokenPipe)
        }
    }

    @Test func closeAfterFlushDeliversEverythingFirst() throws {
        try withGroup { group in
            let data = pattern(count: 8 << 20, seed: 3)
            let server = try ServerHarness(group: group) { connection, _ in
                connection.write(data)
                connection.closeAfterFlush()
                connection.write([0xFF])  // discarded: after closeAfterFlush
            }
            defer { server.listener.stop() }
            let client = try server.client()
            #expect(try client.readToEOF() == data)
            let side = try server.connection()
            try side.delegate.record.wait("the close") { !$0.closes.isEmpty }
            #expect(side.delegate.record.value.closes == [nil])
        }
    }

    @Test func shutdownWriteWaitsForTheBufferAndKeepsReading() throws {
        try withGroup { group in
            let data = pattern(count: 4 << 20, seed: 5)
            let server = try ServerHarness(group: group) { connection, _ in
                connection.write(data)
                connection.shutdownWrite()
            }
            defer { server.listener.stop() }
            let client = try server.client()
            #expect(try client.readToEOF() == data)
            try client.write(Array("still here".utf8))
            client.shutdownWrite()
            let side = try server.connection()
            try side.delegate.record.wait("EOF") { $0.eofs == 1 }
            #expect(side.delegate.record.value.received == Array("still here".utf8))
            #expect(try side.use { $0.isOpen })
            try side.use { $0.close() }
        }
    }
}
