/// How a live credential is written where a recorded one stood, so that it means the same there:
/// a value with `+`, `/` or `=` in a query or form must be percent-encoded, one with `"` in a
/// JSON string escaped.
public enum CredentialEscaping: Sendable, Equatable {
    /// A header field value: written as is, but never one with control characters (a CR or LF
    /// would start another field).
    case headerValue
    /// A URL's path or query, or a form body (RFC 3986 §2.1, WHATWG urlencoded): every byte but
    /// the unreserved ones percent-encoded.
    case urlComponent
    /// Inside a JSON string (RFC 8259 §7).
    case jsonString
    /// Any other body: the bytes as they are.
    case raw

    /// The escaping a body with this `Content-Type` needs.
    public static func forBody(contentType: String?) -> CredentialEscaping {
        guard let type = contentType?.lowercased() else { return .raw }
        if type.hasPrefix("application/x-www-form-urlencoded") { return .urlComponent }
        let mediaType = type.prefix { $0 != ";" }
        if mediaType.hasSuffix("/json") || mediaType.hasSuffix("+json") { return .jsonString }
        return .raw
    }

    /// `value` written for this place; nil when it cannot stand there at all.
    public func escaped(_ value: String) -> [UInt8]? {
        switch self {
        case .raw:
            return Array(value.utf8)
        case .headerValue:
            // RFC 9110 §5.5: field values are visible characters, spaces and tabs, and obs-text.
            guard value.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }) else { return nil }
            return Array(value.utf8)
        case .urlComponent:
            var output: [UInt8] = []
            for byte in value.utf8 {
                if Self.isUnreserved(byte) {
                    output.append(byte)
                } else {
                    output += [UInt8(ascii: "%"), Self.hexDigit(byte >> 4), Self.hexDigit(byte & 0x0F)]
                }
            }
            return output
        case .jsonString:
            var output: [UInt8] = []
            for byte in value.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), byte]
                case 0x00..<0x20:
                    output += Array("\\u00".utf8) + [Self.hexDigit(byte >> 4), Self.hexDigit(byte & 0x0F)]
                default: output.append(byte)
                }
            }
            return output
        }
    }

    /// RFC 3986 §2.3.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? nibble + 0x30 : nibble - 10 + UInt8(ascii: "A")
    }
}
