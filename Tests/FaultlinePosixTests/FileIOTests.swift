import Testing

@testable import FaultlinePosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file shim the trace writer and the rule, CA and token readers share: whole reads across
/// many chunks, the size limit, exact reads that end early, positioned reads, and writes to a
/// full non-blocking pipe that stop without losing their place.
@Suite struct FileIOTests {
    /// A pipe's two ends; both closed by `closeBoth()`.
    struct Pipe {
        let read: Int32
        let write: Int32

        init() throws {
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            read = ends[0]
            write = ends[1]
        }

        func closeBoth() {
            _ = close(read)
            _ = close(write)
        }
    }

    /// A temporary file holding `bytes`, open for reading; the caller closes it.
    static func file(_ bytes: [UInt8]) throws -> Int32 {
        var template = Array("/tmp/faultline-fileio-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        try #require(descriptor >= 0)
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        var written = 0
        _ = try bytes.withUnsafeBytes { try FileIO.write(descriptor, $0, from: &written) }
        try #require(lseek(descriptor, 0, SEEK_SET) == 0)
        return descriptor
    }

    static let text: [UInt8] = (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    @Test func aFileIsReadWholeAcrossManyChunks() throws {
        let descriptor = try Self.file(Self.text)
        defer { close(descriptor) }
        #expect(try FileIO.readToEnd(descriptor, limit: 1 << 20) == Self.text)
    }

    @Test func aFileLargerThanTheLimitIsRefused() throws {
        let descriptor = try Self.file(Self.text)
        defer { close(descriptor) }
        #expect(try FileIO.readToEnd(descriptor, limit: Self.text.count - 1) == nil)
        #expect(
            try lseek(descriptor, 0, SEEK_SET) == 0 && FileIO.readToEnd(descriptor, limit: Self.text.count) == Self.text
        )
    }

    @Test func aPositionedReadTakesItsSliceAndStopsAtTheEnd() throws {
        let descriptor = try Self.file(Self.text)
        defer { close(descriptor) }
        #expect(try FileIO.read(descriptor, count: 100, at: 1000) == Array(Self.text[1000..<1100]))
        #expect(try FileIO.read(descriptor, count: 100, at: Self.text.count - 10) == Array(Self.text.suffix(10)))
    }

    @Test func anExactReadThatEndsEarlyFails() throws {
        let pipe = try Pipe()
        defer { pipe.closeBoth() }
        var written = 0
        _ = try [UInt8](repeating: 1, count: 10).withUnsafeBytes { try FileIO.write(pipe.write, $0, from: &written) }
        _ = close(pipe.write)
        #expect(throws: SystemError(errno: EIO, call: "read")) { try FileIO.readExactly(pipe.read, count: 32) }
    }

    /// A full non-blocking pipe: the write stops with what it wrote counted, and goes on from
    /// there once the reader made room.
    @Test func aWriteThatWouldBlockKeepsItsPlace() throws {
        let pipe = try Pipe()
        defer { pipe.closeBoth() }
        try #require(fcntl(pipe.write, F_SETFL, fcntl(pipe.write, F_GETFL) | O_NONBLOCK) == 0)
        let bytes = [UInt8](repeating: 2, count: 1 << 20)  // more than a pipe holds (64 KiB by default)
        var written = 0
        let done = try bytes.withUnsafeBytes { try FileIO.write(pipe.write, $0, from: &written) }
        #expect(!done && written > 0 && written < bytes.count, "\(written)")
        var drained = [UInt8](repeating: 0, count: written)
        let got = drained.withUnsafeMutableBytes { read(pipe.read, $0.baseAddress, $0.count) }
        #expect(got > 0)
        let before = written
        _ = try bytes.withUnsafeBytes { try FileIO.write(pipe.write, $0, from: &written) }
        #expect(written > before)
    }
}
