#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Conversions between `SocketAddress` and the kernel's `sockaddr` structures.
extension SocketAddress {
    /// Calls `body` with a `sockaddr` pointer and length for this address (for bind and connect).
    func withSockAddr<Result, Failure: Error>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        switch self {
        case .v4(let v4):
            var raw = sockaddr_in()
            #if canImport(Darwin)
            raw.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            raw.sin_family = sa_family_t(AF_INET)
            raw.sin_port = v4.port.bigEndian
            raw.sin_addr = in_addr(s_addr: v4.address.bigEndian)
            return try Self.withRebound(&raw, body)
        case .v6(let v6):
            var raw = sockaddr_in6()
            #if canImport(Darwin)
            raw.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
            #endif
            raw.sin6_family = sa_family_t(AF_INET6)
            raw.sin6_port = v6.port.bigEndian
            raw.sin6_scope_id = v6.scopeID
            Self.store(v6, in: &raw.sin6_addr)
            return try Self.withRebound(&raw, body)
        }
    }

    private static func withRebound<Raw, Result, Failure: Error>(
        _ raw: inout Raw, _ body: (UnsafePointer<sockaddr>, socklen_t) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let length = socklen_t(MemoryLayout<Raw>.size)
        return try withUnsafePointer(to: &raw) { (pointer) throws(Failure) -> Result in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (address) throws(Failure) -> Result in
                try body(address, length)
            }
        }
    }

    /// Reads an address the kernel writes (getsockname, getpeername); nil on failure or an
    /// address family other than IPv4/IPv6.
    static func fromKernel(
        _ body: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32
    ) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, &length) }
        }
        guard result == 0 else { return nil }
        return SocketAddress(storage: storage)
    }

    /// Converts a kernel `sockaddr_storage`; nil for families other than IPv4/IPv6.
    init?(storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let raw = withUnsafeBytes(of: &storage) { $0.loadUnaligned(as: sockaddr_in.self) }
            self = .v4(IPv4(address: UInt32(bigEndian: raw.sin_addr.s_addr), port: UInt16(bigEndian: raw.sin_port)))
        case AF_INET6:
            let raw = withUnsafeBytes(of: &storage) { $0.loadUnaligned(as: sockaddr_in6.self) }
            let (high, low) = Self.load(raw.sin6_addr)
            self = .v6(IPv6(high: high, low: low, scopeID: raw.sin6_scope_id, port: UInt16(bigEndian: raw.sin6_port)))
        default:
            return nil
        }
    }

    /// Converts what `getaddrinfo` returned in one `addrinfo` entry.
    init?(addrinfoAddress pointer: UnsafePointer<sockaddr>, length: socklen_t) {
        var storage = sockaddr_storage()
        let count = min(Int(length), MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: count))
        }
        self.init(storage: storage)
    }
}
