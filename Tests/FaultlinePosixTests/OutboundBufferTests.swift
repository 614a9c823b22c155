import Testing

@testable import FaultlinePosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct OutboundBufferTests {
    @Test func writesQueuedChunksInOrderAcrossPartialWrites() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Posix.streamSocketType, 0, &fds) == 0)
        defer {
            Posix.closeDescriptor(fds[0])
            Posix.closeDescriptor(fds[1])
        }
        try Posix.setNonBlocking(fds[0])
        try Posix.setNonBlocking(fds[1])
        let data = pattern(count: 3_000_000)
        var buffer = OutboundBuffer()
        // Many appends of odd sizes: some share a chunk, some need their own.
        var offset = 0
        var size = 1
        while offset < data.count {
            let end = min(data.count, offset + size)
            data[offset..<end].withUnsafeBytes { buffer.append($0) }
            offset = end
            size = size * 3 % 70_001 + 1
        }
        let queued = buffer.byteCount
        #expect(queued == data.count)
        var received: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 65536)
        var rounds = 0
        while !buffer.isEmpty || received.count < data.count {
            rounds += 1
            #expect(rounds < 100_000)
            if rounds >= 100_000 { break }
            if !buffer.isEmpty { _ = try buffer.write(to: fds[0]) }
            let got = scratch.withUnsafeMutableBytes { read(fds[1], $0.baseAddress, $0.count) }
            if got > 0 { received.append(contentsOf: scratch[..<got]) }
        }
        #expect(received == data)
        let left = buffer.byteCount
        #expect(left == 0)
    }

    @Test func removeAllForgetsEverything() {
        var buffer = OutboundBuffer()
        pattern(count: 100_000).withUnsafeBytes { buffer.append($0) }
        buffer.removeAll()
        let empty = buffer.isEmpty
        #expect(empty)
        ([1, 2, 3] as [UInt8]).withUnsafeBytes { buffer.append($0) }
        let count = buffer.byteCount
        #expect(count == 3)
    }
}
