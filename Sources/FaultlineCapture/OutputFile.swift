#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file this module makes (a capture, a HAR) in one go.
///
/// A file that holds raw secrets is created with mode 0600, and made so even when it existed with
/// another mode, as `faultline run --capture-secrets keep` does with its capture (FaultlineTrace's
/// `TraceSink.openFile(privateMode:)`); any other file is created with mode 0644.
public enum OutputFile {
    /// Creates or truncates `path` and writes `bytes`; `holdsRawSecrets` makes it private.
    public static func write(_ bytes: [UInt8], to path: String, holdsRawSecrets: Bool) throws(CaptureWriteError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, holdsRawSecrets ? 0o600 : 0o644)
        guard descriptor >= 0 else { throw CaptureWriteError("cannot write \(path): \(errorText(errno))") }
        defer { close(descriptor) }
        if holdsRawSecrets, fchmod(descriptor, 0o600) != 0 {
            throw CaptureWriteError("cannot make \(path) private (mode 0600): \(errorText(errno))")
        }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                systemWrite(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if result > 0 {
                written += result
            } else if result < 0 && errno == EINTR {
                continue
            } else {
                throw CaptureWriteError("cannot write \(path): \(errorText(result < 0 ? errno : EIO))")
            }
        }
    }

    private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, bytes, count)
        #else
        Darwin.write(descriptor, bytes, count)
        #endif
    }

    private static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
