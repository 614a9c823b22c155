/// UTF-8 checks for captured bodies (RFC 3629 §4), which decide between text and base64.
enum UTF8Validation {
    /// True when `bytes` is well-formed UTF-8: no overlong forms, no surrogates, nothing past
    /// U+10FFFF (the Unicode Standard's table 3-7). Checked in place: no String is made.
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return false
            }
            guard index + length <= count, (low...high).contains(bytes[index + 1]) else { return false }
            for offset in 2..<max(2, length) where !(0x80...0xBF).contains(bytes[index + offset]) { return false }
            index += length
        }
        return true
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
