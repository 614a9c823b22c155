import Testing

@testable import FaultlinePosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct SyscallTests {
    /// A loopback port nobody listens on: bind an ephemeral port, then close the socket.
    static func closedPort() throws -> SocketAddress {
        let fd = try Posix.makeStreamSocket(family: AF_INET)
        defer { Posix.closeDescriptor(fd) }
        try Posix.bind(fd, to: SocketAddress(parsing: "127.0.0.1:0"))
        return try #require(Posix.localAddress(fd))
    }

    @Test func connectToAClosedPortIsRefused() throws {
        let address = try Self.closedPort()
        let fd = socket(AF_INET, Posix.streamSocketType, 0)
        defer { close(fd) }
        // A blocking socket, so the refusal comes back from connect itself.
        let error = try #require(throws: SystemError.self) { _ = try Posix.connect(fd, to: address) }
        #expect(error.isConnectionRefused)
        #expect(error.call == "connect")
        #expect(error.description == "connect: Connection refused (errno \(ECONNREFUSED))")
    }

    @Test func wouldBlockIsAResultNotAnError() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Posix.streamSocketType, 0, &fds) == 0)
        defer {
            Posix.closeDescriptor(fds[0])
            Posix.closeDescriptor(fds[1])
        }
        try Posix.setNonBlocking(fds[0])
        var byte: [UInt8] = [0]
        let result = try byte.withUnsafeMutableBytes { try Posix.read(fds[0], into: $0) }
        guard case .wouldBlock = result else {
            Issue.record("expected wouldBlock, got \(result)")
            return
        }
        // Once a byte is there, the same call processes it.
        _ = try [UInt8(7)].withUnsafeBytes { try Posix.write(fds[1], $0) }
        let second = try byte.withUnsafeMutableBytes { try Posix.read(fds[0], into: $0) }
        guard case .processed(1) = second else {
            Issue.record("expected one byte, got \(second)")
            return
        }
        #expect(byte == [7])
    }

    @Test func otherErrorsThrowWithTheCallName() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Posix.streamSocketType, 0, &fds) == 0)
        defer { Posix.closeDescriptor(fds[0]) }
        Posix.closeDescriptor(fds[1])
        let error = try #require(throws: SystemError.self) {
            _ = try [UInt8(1)].withUnsafeBytes { try Posix.write(fds[0], $0) }
        }
        #expect(error.isBrokenPipe)
        #expect(error.call == "send" || error.call == "write")
    }

    @Test func systemErrorHelpers() {
        #expect(SystemError(errno: EADDRINUSE, call: "bind").isAddressInUse)
        #expect(SystemError(errno: ECONNRESET, call: "read").isConnectionReset)
        #expect(SystemError(errno: EMFILE, call: "accept").isTooManyOpenFiles)
        #expect(SystemError(errno: ENETUNREACH, call: "connect").isUnreachable)
        #expect(!SystemError(errno: ECONNREFUSED, call: "connect").isUnreachable)
    }

    @Test func millisecondsRoundUp() {
        #expect(Duration.zero.millisecondsRoundedUp == 0)
        #expect(Duration.nanoseconds(1).millisecondsRoundedUp == 1)
        #expect(Duration.milliseconds(10).millisecondsRoundedUp == 10)
        #expect(Duration.microseconds(10_001).millisecondsRoundedUp == 11)
        #expect(Duration.seconds(-1).millisecondsRoundedUp == 0)
        #expect(Duration.seconds(1 << 40).millisecondsRoundedUp == Int32.max)
    }
}
