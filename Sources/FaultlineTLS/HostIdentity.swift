#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a certificate names: a DNS name or an IP address, in one canonical spelling.
///
/// Host names reach us from clients (SNI, CONNECT targets), so they are checked here before they
/// go near a certificate: a DNS name is ASCII letters, digits, `-` and `_` in dot-separated labels
/// of 1–63 bytes, 253 bytes at most (RFC 1035 §2.3.4; `_` because internal hosts use it), compared
/// case-insensitively (RFC 4343), so it is lower-cased and a trailing root dot dropped. An IP
/// literal (IPv6 with or without brackets) becomes its octets, and a SAN of type iPAddress
/// (RFC 5280 §4.2.1.6); TLS never sends an address in SNI (RFC 6066 §3).
enum HostIdentity: Hashable, Sendable {
    case dnsName(String)
    /// The canonical text (`inet_ntop`) and the 4 or 16 network-order octets.
    case ipAddress(String, [UInt8])

    /// Classifies `host`, or throws `invalid-host` for something no certificate can name.
    init(_ host: String) throws(TLSError) {
        var text = Substring(host)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let address = Self.parseAddress(String(text)) {
            self = address
            return
        }
        if text.hasSuffix(".") { text = text.dropLast() }
        let name = text.lowercased()
        guard Self.isValidDNSName(name) else {
            throw TLSError(
                code: TLSError.invalidHost,
                description: "\"\(Self.printable(host))\" is neither a valid DNS name nor an IP address.")
        }
        self = .dnsName(name)
    }

    /// The name used as the certificate cache key and the leaf's common name.
    var text: String {
        switch self {
        case .dnsName(let name): name
        case .ipAddress(let text, _): text
        }
    }

    private static func isValidDNSName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 253 else { return false }
        var labelLength = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "."):
                guard labelLength > 0 else { return false }
                labelLength = 0
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"):
                labelLength += 1
                guard labelLength <= 63 else { return false }
            default:
                return false
            }
        }
        return labelLength > 0
    }

    private static func parseAddress(_ text: String) -> HostIdentity? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            let octets = withUnsafeBytes(of: &v4) { Array($0) }
            return .ipAddress(canonical(AF_INET, octets), octets)
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            let octets = withUnsafeBytes(of: &v6) { Array($0) }
            return .ipAddress(canonical(AF_INET6, octets), octets)
        }
        return nil
    }

    private static func canonical(_ family: Int32, _ octets: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let count = socklen_t(buffer.count)
        return octets.withUnsafeBytes { address in
            buffer.withUnsafeMutableBufferPointer { out in
                guard inet_ntop(family, address.baseAddress, out.baseAddress, count) != nil else { return "" }
                return String(cString: out.baseAddress!)
            }
        }
    }

    /// `host` with anything outside printable ASCII escaped, so an error message cannot carry
    /// control bytes from a peer into a terminal or the trace.
    static func printable(_ host: String) -> String {
        var out = ""
        for scalar in host.unicodeScalars.prefix(300) {
            if scalar.value >= 0x20, scalar.value < 0x7F, scalar != "\"", scalar != "\\" {
                out.unicodeScalars.append(scalar)
            } else {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return out
    }
}
