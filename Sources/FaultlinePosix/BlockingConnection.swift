public import FaultlineCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP connection for a short-lived command-line client: each call blocks the calling thread,
/// but never past its deadline.
///
/// Use it from one thread: `init(connectingTo:timeout:)`, then `sendAll` and `read` with a deadline,
/// then `close()` (or let it go; `deinit` closes). The socket itself is non-blocking, and every wait
/// is a `poll` bounded by the deadline, so a peer that never answers makes the call throw a
/// `SystemError` with `ETIMEDOUT` instead of hanging. Not for the event loops: they use
/// `StreamConnection`.
public final class BlockingConnection {
    private var fd: Int32

    /// Connects to `address`, waiting at most `timeout`. Throws the connect error (refused,
    /// unreachable) or `ETIMEDOUT`.
    public init(connectingTo address: SocketAddress, timeout: Duration) throws(SystemError) {
        let deadline = MonotonicInstant.now().advanced(by: timeout)
        fd = try Posix.makeStreamSocket(family: address.family)
        do throws(SystemError) {
            try Posix.setNoDelay(fd)
            if try !Posix.connect(fd, to: address) {
                try Self.waitUntilReady(fd, events: Int16(POLLOUT), deadline: deadline, call: "connect")
                let code = try Posix.pendingError(fd)
                if code != 0 { throw SystemError(errno: code, call: "connect") }
            }
        } catch {
            Posix.closeDescriptor(fd)
            fd = -1
            throw error
        }
    }

    deinit {
        close()
    }

    /// True until `close()`.
    public var isOpen: Bool { fd >= 0 }

    /// Sends every byte of `bytes`, waiting for room in the socket buffer until `deadline`.
    /// Throws the send error (EPIPE, ECONNRESET) or `ETIMEDOUT`.
    public func sendAll(_ bytes: [UInt8], deadline: MonotonicInstant) throws(SystemError) {
        precondition(fd >= 0, "BlockingConnection used after close()")
        var sent = 0
        while sent < bytes.count {
            let attempt = bytes.withUnsafeBytes { buffer in
                Result { () throws(SystemError) in
                    try Posix.write(fd, UnsafeRawBufferPointer(rebasing: buffer[sent...]))
                }
            }
            switch try attempt.get() {
            case .processed(let count): sent += count
            case .wouldBlock: try Self.waitUntilReady(fd, events: Int16(POLLOUT), deadline: deadline, call: "send")
            }
        }
    }

    /// Reads what is available (up to `maximum` bytes), waiting for data until `deadline`.
    /// Returns an empty array when the peer closed its side (EOF). Throws the read error or
    /// `ETIMEDOUT` when nothing arrived in time.
    public func read(maximum: Int = 64 * 1024, deadline: MonotonicInstant) throws(SystemError) -> [UInt8] {
        precondition(fd >= 0, "BlockingConnection used after close()")
        var bytes = [UInt8](repeating: 0, count: maximum)
        while true {
            let attempt = bytes.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemError) in try Posix.read(fd, into: buffer) }
            }
            switch try attempt.get() {
            case .processed(let count):
                bytes.removeSubrange(count...)
                return bytes
            case .wouldBlock:
                try Self.waitUntilReady(fd, events: Int16(POLLIN), deadline: deadline, call: "read")
            }
        }
    }

    /// Closes the socket. Idempotent.
    public func close() {
        guard fd >= 0 else { return }
        Posix.closeDescriptor(fd)
        fd = -1
    }

    /// Polls `fd` for `events` until it is ready (or reports an error or hang-up, which the next
    /// call then surfaces) or `deadline` passes, which throws `ETIMEDOUT` naming `call`.
    private static func waitUntilReady(
        _ fd: Int32, events: Int16, deadline: MonotonicInstant, call: StaticString
    ) throws(SystemError) {
        while true {
            let now = MonotonicInstant.now()
            guard now < deadline else { throw SystemError(errno: ETIMEDOUT, call: String(describing: call)) }
            // Round up, so a sub-millisecond remainder still waits instead of spinning.
            let milliseconds = (now.duration(to: deadline).inSeconds * 1000).rounded(.up)
            var request = pollfd(fd: fd, events: events, revents: 0)
            let ready = try Posix.blockingCall("poll") { poll(&request, 1, Int32(min(milliseconds, 60_000))) }
            if ready > 0 { return }
        }
    }
}
