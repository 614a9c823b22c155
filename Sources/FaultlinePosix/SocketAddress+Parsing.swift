#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a string is not a numeric socket address.
public struct SocketAddressError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text that was rejected.
    public let input: String
    /// What was wrong with it.
    public let reason: String

    /// `invalid socket address "x": reason`.
    public var description: String { "invalid socket address \"\(input)\": \(reason)" }
}

extension SocketAddress {
    /// Builds an address from a numeric IPv4 (`"127.0.0.1"`) or IPv6 (`"::1"`, `"fe80::1%2"`,
    /// `"fe80::1%lo"`) literal and a port. No name resolution happens: use `HostResolver` for names.
    /// Throws `SocketAddressError` for anything else or a port outside 0–65535.
    public init(ipAddress: String, port: Int) throws {
        guard (0...65535).contains(port) else {
            throw SocketAddressError(input: ipAddress, reason: "port \(port) is out of range 0-65535")
        }
        if let v4 = Self.parseIPv4(ipAddress) {
            self = .v4(IPv4(address: v4, port: UInt16(port)))
        } else if let v6 = try Self.parseIPv6(ipAddress) {
            self = .v6(IPv6(high: v6.high, low: v6.low, scopeID: v6.scope, port: UInt16(port)))
        } else {
            throw SocketAddressError(input: ipAddress, reason: "not a numeric IPv4 or IPv6 address")
        }
    }

    /// Parses `"127.0.0.1:8080"`, `"[::1]:8080"` or `"0.0.0.0:0"` (IPv6 needs the brackets).
    /// Throws `SocketAddressError` when the host is not a literal or the port is missing, not a
    /// number, or out of range (each with its own reason).
    public init(parsing text: String) throws {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw SocketAddressError(input: text, reason: "missing ']' after the IPv6 address")
            }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.first == ":" else {
                throw SocketAddressError(input: text, reason: "expected ':port' after ']'")
            }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                throw SocketAddressError(input: text, reason: "expected host:port")
            }
            host = text[..<colon]
            guard !host.contains(":") else {
                throw SocketAddressError(input: text, reason: "an IPv6 address needs brackets: [addr]:port")
            }
            portText = text[text.index(after: colon)...]
        }
        guard !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw SocketAddressError(input: text, reason: "port must be a number 0-65535")
        }
        guard portText.count <= 5, let port = Int(portText), port <= 65535 else {
            throw SocketAddressError(input: text, reason: "port \(portText) is out of range 0-65535")
        }
        do {
            try self.init(ipAddress: String(host), port: port)
        } catch let error as SocketAddressError {
            throw SocketAddressError(input: text, reason: error.reason)
        }
    }

    fileprivate static func parseIPv4(_ text: String) -> UInt32? {
        var raw = in_addr()
        // inet_pton accepts only the dotted-quad form, unlike inet_aton ("127.1").
        guard inet_pton(AF_INET, text, &raw) == 1 else { return nil }
        return UInt32(bigEndian: raw.s_addr)
    }

    fileprivate static func parseIPv6(_ text: String) throws -> (high: UInt64, low: UInt64, scope: UInt32)? {
        var addressPart = Substring(text)
        var scope: UInt32 = 0
        if let percent = text.firstIndex(of: "%") {
            addressPart = text[..<percent]
            let zone = String(text[text.index(after: percent)...])
            if let number = UInt32(zone) {
                scope = number
            } else {
                // A zone name such as "lo" or "eth0" (RFC 4007 section 11).
                scope = if_nametoindex(zone)
                guard scope != 0 else {
                    throw SocketAddressError(input: text, reason: "unknown interface \"\(zone)\"")
                }
            }
        }
        var raw = in6_addr()
        guard inet_pton(AF_INET6, String(addressPart), &raw) == 1 else { return nil }
        let (high, low) = load(raw)
        return (high, low, scope)
    }
}

extension SocketAddress {
    /// The address when `host` is an IP literal (brackets around IPv6 allowed, as in URLs), else
    /// nil. Unlike the throwing initializers it builds no error, so it is cheap to try on names.
    static func literal(_ host: String, port: Int) -> SocketAddress? {
        guard (0...65535).contains(port) else { return nil }
        if let v4 = parseIPv4(host) { return .v4(IPv4(address: v4, port: UInt16(port))) }
        guard host.utf8.contains(UInt8(ascii: ":")) else { return nil }
        var text = host
        if host.hasPrefix("[") {
            guard host.hasSuffix("]") else { return nil }
            text = String(host.dropFirst().dropLast())
        }
        guard let v6 = try? parseIPv6(text) else { return nil }
        return .v6(IPv6(high: v6.high, low: v6.low, scopeID: v6.scope, port: UInt16(port)))
    }
}
