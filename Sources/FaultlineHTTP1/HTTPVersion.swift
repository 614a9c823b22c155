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

    /// The version as it appears on the wire, e.g. `"HTTP/1.1"`.
    public var description: String { "HTTP/\(major).\(minor)" }
}
