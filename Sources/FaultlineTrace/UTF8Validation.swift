/// UTF-8 checks for captured bodies (RFC 3629 §4), which decide between text and base64.
enum UTF8Validation {
    /// True when `bytes` is well-formed UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF.
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        String(validating: bytes, as: UTF8.self) != nil
    }

    /// The length of `bytes` without a multi-byte sequence its end cuts short (at most 3 bytes).
    static func completePrefixLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var start = bytes.count
        // Step back over continuation bytes (10xxxxxx) to the last lead byte.
        while start > 0, bytes.count - start < 4, bytes[start - 1] & 0xC0 == 0x80 { start -= 1 }
        guard start > 0 else { return bytes.count }
        let lead = bytes[start - 1]
        let needed: Int
        switch lead {
        case 0xC0...0xDF: needed = 2
        case 0xE0...0xEF: needed = 3
        case 0xF0...0xF7: needed = 4
        default: return bytes.count
        }
        return bytes.count - (start - 1) < needed ? start - 1 : bytes.count
    }
}
