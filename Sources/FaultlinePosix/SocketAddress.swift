#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address with a TCP port; never a host name.
///
/// Build one from a numeric literal (`init(ipAddress:port:)`, `init(parsing:)`), get one from a
/// listener or connection, or from `HostResolver`. The storage is our own, so the value is
/// `Hashable` and `Sendable` and can key dictionaries.
public enum SocketAddress: Hashable, Sendable, CustomStringConvertible {
    /// An IPv4 endpoint.
    case v4(IPv4)
    /// An IPv6 endpoint.
    case v6(IPv6)

    /// An IPv4 endpoint.
    public struct IPv4: Hashable, Sendable {
        /// The address as a number: `127.0.0.1` is `0x7F00_0001` (host byte order).
        public var address: UInt32
        /// The TCP port.
        public var port: UInt16

        /// An endpoint from a numeric address and a port.
        public init(address: UInt32, port: UInt16) {
            self.address = address
            self.port = port
        }
    }

    /// An IPv6 endpoint.
    public struct IPv6: Hashable, Sendable {
        /// The first 8 bytes of the address, as a big-endian number.
        public var high: UInt64
        /// The last 8 bytes of the address, as a big-endian number.
        public var low: UInt64
        /// The interface index for link-local addresses (`fe80::1%2`), 0 otherwise.
        public var scopeID: UInt32
        /// The TCP port.
        public var port: UInt16

        /// An endpoint from the address halves, an optional scope and a port.
        public init(high: UInt64, low: UInt64, scopeID: UInt32 = 0, port: UInt16) {
            self.high = high
            self.low = low
            self.scopeID = scopeID
            self.port = port
        }
    }

    /// The port, 0–65535.
    public var port: Int {
        switch self {
        case .v4(let v4): Int(v4.port)
        case .v6(let v6): Int(v6.port)
        }
    }

    /// The same address with another port (used to apply a port to resolved addresses).
    public func withPort(_ port: Int) -> SocketAddress {
        precondition((0...65535).contains(port), "port \(port) out of range")
        switch self {
        case .v4(var v4):
            v4.port = UInt16(port)
            return .v4(v4)
        case .v6(var v6):
            v6.port = UInt16(port)
            return .v6(v6)
        }
    }

    /// `AF_INET` or `AF_INET6`.
    public var family: Int32 {
        switch self {
        case .v4: AF_INET
        case .v6: AF_INET6
        }
    }

    /// True for 127.0.0.0/8 and ::1.
    public var isLoopback: Bool {
        switch self {
        case .v4(let v4): v4.address >> 24 == 127
        case .v6(let v6): v6.high == 0 && v6.low == 1
        }
    }

    /// The numeric address without port: `"127.0.0.1"`, `"::1"`, `"fe80::1%2"`.
    public var ipAddress: String {
        switch self {
        case .v4(let v4):
            let raw = in_addr(s_addr: v4.address.bigEndian)
            return withUnsafeBytes(of: raw) { Self.format(family: AF_INET, $0.baseAddress!) }
        case .v6(let v6):
            var raw = in6_addr()
            Self.store(v6, in: &raw)
            let text = withUnsafeBytes(of: raw) { Self.format(family: AF_INET6, $0.baseAddress!) }
            return v6.scopeID == 0 ? text : "\(text)%\(v6.scopeID)"
        }
    }

    /// `"127.0.0.1:8080"` or `"[::1]:8080"`: the form `init(parsing:)` reads back.
    public var description: String {
        switch self {
        case .v4: "\(ipAddress):\(port)"
        case .v6: "[\(ipAddress)]:\(port)"
        }
    }

    private static func format(family: Int32, _ raw: UnsafeRawPointer) -> String {
        // INET6_ADDRSTRLEN is 46, enough for both families.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            guard inet_ntop(family, raw, buffer.baseAddress, 64) != nil else { return "?" }
            return String(cString: buffer.baseAddress!)
        }
    }

    static func store(_ v6: IPv6, in raw: inout in6_addr) {
        withUnsafeMutableBytes(of: &raw) { bytes in
            bytes.storeBytes(of: v6.high.bigEndian, toByteOffset: 0, as: UInt64.self)
            bytes.storeBytes(of: v6.low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
    }

    static func load(_ raw: in6_addr) -> (high: UInt64, low: UInt64) {
        withUnsafeBytes(of: raw) { bytes in
            (
                UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            )
        }
    }
}
