import FaultlineCore
import Testing

@testable import FaultlinePosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct ConnectTests {
    /// Connects on `loop` and waits for the outcome; a connection is closed at once.
    static func connect(
        _ addresses: [SocketAddress], on loop: EventLoop, timeout: Duration = .seconds(5)
    ) throws -> Result<SocketAddress?, ConnectError> {
        let outcome = Promise<Result<SocketAddress?, ConnectError>>()
        try onLoop(loop) {
            StreamConnection.connect(to: addresses, id: ConnectionID(9), on: loop, timeout: timeout) { result in
                #expect(loop.inEventLoop)
                switch result {
                case .success(let connection):
                    outcome.fulfill(.success(connection.remoteAddress))
                    connection.close()
                case .failure(let error):
                    outcome.fulfill(.failure(error))
                }
            }
        }
        return try outcome.wait(seconds: 20, "the connect outcome")
    }

    @Test func aClosedPortIsRefusedNotTimedOut() throws {
        try withGroup(loops: 1) { group in
            let address = try SyscallTests.closedPort()
            let result = try Self.connect([address], on: group.loops[0])
            guard case .failure(let error) = result else {
                Issue.record("connected to a closed port")
                return
            }
            #expect(error.isRefused)
            #expect(!error.isTimeout)
            #expect(error.lastAddress == address)
            #expect(error.lastError?.isConnectionRefused == true)
            #expect(error.attempts == 1)
            #expect(error.description.contains("refused"))
        }
    }

    @Test func triesTheNextAddressAfterARefusal() throws {
        try withGroup(loops: 1) { group in
            let listener = try makeEchoListener(address: SocketAddress(parsing: "[::1]:0"), group: group)
            defer { listener.stop() }
            let closed = try SyscallTests.closedPort()
            let result = try Self.connect([closed, listener.localAddress], on: group.loops[0])
            #expect(try result.get() == listener.localAddress)
        }
    }

    @Test func anEmptyAddressListFails() throws {
        try withGroup(loops: 1) { group in
            let result = try Self.connect([], on: group.loops[0])
            guard case .failure(let error) = result else {
                Issue.record("connected to nothing")
                return
            }
            #expect(error.reason == .noAddresses)
        }
    }

    /// A listener whose accept queue is full drops further SYNs (Linux), so a connect to it hangs
    /// until our deadline: a loopback-only way to exercise the timeout.
    @Test func aHandshakeThatNeverCompletesTimesOut() throws {
        let fd = socket(AF_INET, Posix.streamSocketType, 0)
        defer { close(fd) }
        try Posix.bind(fd, to: SocketAddress(parsing: "127.0.0.1:0"))
        try Posix.listen(fd, backlog: 0)
        let address = try #require(Posix.localAddress(fd))
        // Fill the queue; nobody ever accepts.
        let filler = try BlockingClient(connectingTo: address)
        try withGroup(loops: 1) { group in
            let start = MonotonicInstant.now()
            let result = try Self.connect([address], on: group.loops[0], timeout: .milliseconds(200))
            guard case .failure(let error) = result else {
                Issue.record("connected although the accept queue is full")
                return
            }
            #expect(error.isTimeout)
            #expect(start.duration(to: .now()) >= .milliseconds(200))
            #expect(error.lastAddress == address)
        }
        _ = filler
    }
}
