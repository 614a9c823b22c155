#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading and writing files through the syscall shim (`Posix.call`): `EINTR` retried, short
/// reads and writes continued, failures as `SystemError`. The trace writer, the rule and CA file
/// readers and the control token use it instead of loops of their own.
public enum FileIO {
    /// Reads `descriptor` to its end. Returns nil when it holds more than `limit` bytes (the rest
    /// is not read). With `scrub`, the read buffer is zeroed before it is freed (key material).
    public static func readToEnd(_ descriptor: Int32, limit: Int, scrub: Bool = false) throws(SystemError) -> [UInt8]? {
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        defer { if scrub { for index in chunk.indices { chunk[index] = 0 } } }
        while true {
            let count = try chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemError) in
                    try Posix.blockingCall("read") { systemRead(descriptor, buffer.baseAddress, buffer.count) }
                }
            }.get()
            if count == 0 { return contents }
            contents.append(contentsOf: chunk[..<count])
            if contents.count > limit { return nil }
        }
    }

    /// Reads exactly `count` bytes (from a device such as `/dev/urandom`); an early end of file
    /// is an `EIO` failure.
    public static func readExactly(_ descriptor: Int32, count: Int) throws(SystemError) -> [UInt8] {
        let bytes = try fill(count: count, "read") { start, wanted, _ in systemRead(descriptor, start, wanted) }
        guard bytes.count == count else { throw SystemError(errno: EIO, call: "read") }
        return bytes
    }

    /// Reads up to `count` bytes at `offset` without moving the file position; fewer when the
    /// file ends first.
    public static func read(_ descriptor: Int32, count: Int, at offset: Int) throws(SystemError) -> [UInt8] {
        try fill(count: count, "pread") { start, wanted, filled in
            pread(descriptor, start, wanted, off_t(offset + filled))
        }
    }

    /// Reads up to `count` bytes, calling `next(start, wanted, filled)` (`wanted` bytes to
    /// `start`, `filled` already read) until they are all there or it returns 0 (the end of the
    /// file); returns what was read.
    private static func fill(
        count: Int, _ call: StaticString, _ next: (UnsafeMutableRawPointer, Int, Int) -> Int
    ) throws(SystemError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = try bytes.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemError) in
                    try Posix.blockingCall(call) { next(buffer.baseAddress! + filled, count - filled, filled) }
                }
            }.get()
            if got == 0 { break }
            filled += got
        }
        bytes.removeLast(count - filled)
        return bytes
    }

    /// Writes `bytes` from `written` on, advancing `written`, until all are written. A
    /// descriptor that would block (a non-blocking standard output) returns `false` with the
    /// rest unwritten, so the caller decides whether to wait.
    public static func write(
        _ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, from written: inout Int
    ) throws(SystemError) -> Bool {
        while written < bytes.count {
            switch try Posix.call(
                "write", { systemWrite(descriptor, bytes.baseAddress! + written, bytes.count - written) })
            {
            case .processed(let count) where count > 0: written += count
            case .processed: throw SystemError(errno: EIO, call: "write")
            case .wouldBlock: return false
            }
        }
        return true
    }

    /// Writes all of `bytes` to a blocking descriptor (`write` returns only when every byte is
    /// written; a non-blocking one that would block keeps the rest).
    public static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws(SystemError) {
        var written = 0
        _ = try bytes.withUnsafeBytes { buffer in
            Result { () throws(SystemError) in try write(descriptor, buffer, from: &written) }
        }.get()
    }

    private static func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
        #else
        Darwin.read(descriptor, buffer, count)
        #endif
    }

    private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, bytes, count)
        #else
        Darwin.write(descriptor, bytes, count)
        #endif
    }
}
