/// An HTTP protocol version as written in a start line (RFC 9112 §2.3), such as `HTTP/1.1`.
public struct HTTPVersion: Hashable, Sendable, CustomStringConvertible {
    public var major: Int
    public var minor: Int

    /// A version from its two digits, e.g. `HTTPVersion(major: 1, minor: 1)`.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)
    /// A message that came over HTTP/2 (it has no start line; the name has no minor version,
    /// RFC 9113 §3).
    public static let http2 = HTTPVersion(major: 2, minor: 0)

    /// The version as it appears on the wire, e.g. `"HTTP/1.1"`, and `"HTTP/2"` for HTTP/2.
    public var description: String {
        // Literals for the versions every message has: the trace names the version twice per
        // request, and interpolating costs about 900 instructions each time.
        switch (major, minor) {
        case (1, 1): "HTTP/1.1"
        case (1, 0): "HTTP/1.0"
        case (2, 0): "HTTP/2"
        default: "HTTP/\(viaProtocol)"
        }
    }

    /// The version as a `Via` field names the protocol a message was received with
    /// (RFC 9110 §7.6.3): `"1.1"`, `"2"`.
    public var viaProtocol: String {
        switch (major, minor) {
        case (1, 1): "1.1"
        case (1, 0): "1.0"
        case (2, 0): "2"
        default: major >= 2 && minor == 0 ? "\(major)" : "\(major).\(minor)"
        }
    }
}
