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
        var bytes = [UInt8](repeating: 0, count: size - start)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + filled, buffer.count - filled, off_t(start + filled))
            }
            if count > 0 {
                filled += count
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        bytes.removeLast(bytes.count - filled)
        return (bytes, start > 0)
    }
}
