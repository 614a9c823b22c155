import FaultlinePosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension TraceSink {
    /// The last `maxBytes` bytes of the file at `path` (all of it when shorter), and whether they
    /// start after the file's beginning, so possibly inside a line; nil when it cannot be read.
    static func readTail(path: String, maxBytes: Int) -> (bytes: [UInt8], cut: Bool)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        let size = Int(status.st_size)
        let start = max(0, size - maxBytes)
        guard let bytes = try? FileIO.read(descriptor, count: size - start, at: start) else { return nil }
        return (bytes, start > 0)
    }
}
