/// The character classes of RFC 3986 that text the proxy itself puts into a request line is held
/// to: the one definition the codec's authority and strict-path checks and the rule files' paths,
/// queries and hosts use. (Paths and queries a client sends are checked more leniently by the
/// codec: real clients send characters RFC 3986 wants percent-encoded.)
package enum URISyntax {
    /// `unreserved / sub-delims` (RFC 3986 §2.3, §2.2) or `%`, which starts a `pct-encoded`
    /// checked by ``hasValidPercentEncoding(_:)``: the bytes of a `reg-name` (§3.2.2).
    /// Inlinable: the codec calls it per byte of an authority.
    @inlinable
    package static func isRegNameByte(_ byte: UInt8) -> Bool {
        if byte &- 0x30 < 10 || (byte | 0x20) &- 0x61 < 26 { return true }  // DIGIT / ALPHA
        switch byte {
        case 0x2D, 0x2E, 0x5F, 0x7E,  // - . _ ~
            0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x3B, 0x3D,  // ! $ & ' ( ) * + , ; =
            0x25:  // %
            return true
        default:
            return false
        }
    }

    /// A `pchar` (RFC 3986 §3.3: reg-name bytes, `:` and `@`) or `/`.
    @inlinable
    package static func isPathByte(_ byte: UInt8) -> Bool {
        isRegNameByte(byte) || byte == 0x3A || byte == 0x40 || byte == 0x2F  // : @ /
    }

    /// True when every `%` in `bytes` starts a `%XX` escape with two hex digits (RFC 3986 §2.1).
    @inlinable
    package static func hasValidPercentEncoding(_ bytes: some Collection<UInt8>) -> Bool {
        var index = bytes.startIndex
        while let percent = bytes[index...].firstIndex(of: 0x25) {
            let first = bytes.index(after: percent)
            guard first != bytes.endIndex, HexDigit.value(bytes[first]) != nil else { return false }
            let second = bytes.index(after: first)
            guard second != bytes.endIndex, HexDigit.value(bytes[second]) != nil else { return false }
            index = bytes.index(after: second)
        }
        return true
    }

    /// Whether `path` is made of RFC 3986 §3.3 path characters (`pchar` and `/`) with well-formed
    /// `%XX` escapes. Empty is a valid path here; callers that need `/` first check it themselves.
    package static func isStrictPath(_ path: some StringProtocol) -> Bool {
        path.utf8.allSatisfy(isPathByte) && hasValidPercentEncoding(path.utf8)
    }

    /// Whether `query` is an RFC 3986 §3.4 query: `pchar`, `/` and `?`, with well-formed `%XX`
    /// escapes (and so no `#`, which would start a fragment).
    package static func isStrictQuery(_ query: some StringProtocol) -> Bool {
        query.utf8.allSatisfy { isPathByte($0) || $0 == 0x3F } && hasValidPercentEncoding(query.utf8)
    }
}
