import FaultlinePosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file descriptor a recorder writes to, and what it knows about it.
///
/// Only whole buffers of whole lines are handed to `writeAll`. If a write fails part-way, the sink
/// cuts a regular file back to its last complete line and stops writing, so a trace on disk is
/// always a prefix of the events, every line of which parses.
struct TraceSink {
    private var descriptor: Int32
    private let ownsDescriptor: Bool
    /// Bytes of the file known to hold whole lines, or nil when the position is unknown (a pipe).
    private var offset: Int64?
    /// The name used in error messages.
    let label: String
    /// True once a write failed; the sink then drops everything.
    private(set) var failed = false

    /// Creates (or truncates) the file at `path` for writing; `privateMode` makes it 0600 even
    /// when it existed with another mode (it will hold raw secrets).
    /// `failure` begins the message when it cannot be opened.
    static func openFile(
        path: String, privateMode: Bool = false, failure: String = "cannot open trace file"
    ) throws(TraceRecorderError) -> TraceSink {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, privateMode ? 0o600 : 0o644)
        guard descriptor >= 0 else {
            throw TraceRecorderError("\(failure) \(path): \(Self.errorText(errno))")
        }
        if privateMode, fchmod(descriptor, 0o600) != 0 {
            let reason = Self.errorText(errno)
            close(descriptor)
            throw TraceRecorderError("cannot make \(path) private (mode 0600): \(reason)")
        }
        return TraceSink(descriptor: descriptor, ownsDescriptor: true, label: path)
    }

    /// Standard output, which the sink writes to but never closes.
    static func standardOutput() -> TraceSink {
        TraceSink(descriptor: 1, ownsDescriptor: false, label: "standard output")
    }

    private init(descriptor: Int32, ownsDescriptor: Bool, label: String) {
        self.descriptor = descriptor
        self.ownsDescriptor = ownsDescriptor
        self.label = label
        let position = lseek(descriptor, 0, SEEK_CUR)
        offset = position >= 0 ? Int64(position) : nil
    }

    /// Writes all of `bytes` (whole lines), retrying interrupted and partial writes.
    ///
    /// Returns nil on success (or when the sink is closed or failed), else a message for the user;
    /// after a failure the sink writes nothing more.
    mutating func writeAll(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard !failed, descriptor >= 0, !bytes.isEmpty else { return nil }
        var written = 0
        guard let code = writeFully(bytes, written: &written) else {
            if let known = offset { offset = known + Int64(written) }
            return nil
        }
        failed = true
        if let known = offset, written > 0 {
            // Keep the complete lines that made it; cut the torn one.
            let kept = bytes.slice(0, written).lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
            _ = ftruncate(descriptor, off_t(known + Int64(kept)))
        }
        return "faultline: writing the trace to \(label) failed: \(Self.errorText(code)); later events are not written"
    }

    /// Writes until every byte is written (`FileIO` retries interrupted and partial writes);
    /// returns the errno of a failure, or nil.
    private func writeFully(_ bytes: UnsafeBufferPointer<UInt8>, written: inout Int) -> Int32? {
        var waits = 0
        do {
            while try !FileIO.write(descriptor, UnsafeRawBufferPointer(bytes), from: &written) {
                // A non-blocking descriptor (a stdout shared with a parent): wait for room.
                guard waits < 10 else { return EAGAIN }
                waits += 1
                var request = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&request, 1, 1000)
            }
            return nil
        } catch {
            return error.errno
        }
    }

    /// Closes the file (not standard output); later writes do nothing.
    mutating func closeDescriptor() {
        if ownsDescriptor && descriptor >= 0 { _ = close(descriptor) }
        descriptor = -1
    }

    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// Writes `message` and a newline to standard error, ignoring failures (there is nowhere left to report them).
    static func reportOnStandardError(_ message: String) {
        var line = Array(message.utf8)
        line.append(UInt8(ascii: "\n"))
        line.withUnsafeBytes { buffer in
            var done = 0
            _ = try? FileIO.write(2, buffer, from: &done)
        }
    }
}
