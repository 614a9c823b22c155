#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: the `errno` it left and the name of the call.
///
/// Thrown by every socket operation of this module for errors that are not "would block" and
/// not our own misuse (see `Posix`). Compare with the `is…` helpers rather than raw numbers so
/// callers stay portable between Linux and Darwin.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The `errno` value the call left.
    public let errno: Int32
    /// The failed call, e.g. `"connect"`.
    public let call: String

    /// Creates an error for `call` failing with `errno`.
    public init(errno: Int32, call: String) {
        self.errno = errno
        self.call = call
    }

    /// `"connect: Connection refused (errno 111)"`.
    public var description: String {
        "\(call): \(Self.message(for: errno)) (errno \(errno))"
    }

    /// The peer refused the connection (nothing listens on that port).
    public var isConnectionRefused: Bool { errno == ECONNREFUSED }
    /// Binding failed because the address is already taken.
    public var isAddressInUse: Bool { errno == EADDRINUSE }
    /// The peer reset the connection (it sent RST).
    public var isConnectionReset: Bool { errno == ECONNRESET }
    /// Writing to a connection whose peer has gone away.
    public var isBrokenPipe: Bool { errno == EPIPE }
    /// The kernel gave up (e.g. TCP retransmissions or keepalive timed out).
    public var isTimedOut: Bool { errno == ETIMEDOUT }
    /// The network or host cannot be reached, or the address cannot be used from here.
    public var isUnreachable: Bool {
        errno == ENETUNREACH || errno == EHOSTUNREACH || errno == EADDRNOTAVAIL || errno == EAFNOSUPPORT
            || errno == ENETDOWN || errno == EHOSTDOWN
    }
    /// The process or the system ran out of file descriptors.
    public var isTooManyOpenFiles: Bool { errno == EMFILE || errno == ENFILE }

    /// The C library's text for `errno`.
    ///
    /// `strerror` returns static strings for known values in glibc and Darwin libc, and we copy
    /// the text at once, so concurrent callers cannot observe a torn buffer for those values.
    static func message(for errno: Int32) -> String {
        guard let text = strerror(errno) else { return "Unknown error" }
        return String(cString: text)
    }
}
