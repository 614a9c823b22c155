/// Byte-level helpers for the redaction scanners, which read header values and URLs as UTF-8
/// without building Strings. Every delimiter they look for is ASCII, and ASCII bytes never occur
/// inside a multi-byte UTF-8 sequence, so splitting on them never cuts a character.
extension UnsafeBufferPointer<UInt8> {
    /// The bytes in `start..<end`, without copying.
    @inline(__always)
    func slice(_ start: Int, _ end: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: self[start..<end])
    }

    /// The bytes without leading and trailing spaces and tabs (OWS, RFC 9110 §5.6.3).
    func trimmingWhitespace() -> UnsafeBufferPointer<UInt8> {
        var start = 0
        var end = count
        while start < end && ASCII.isWhitespace(self[start]) { start += 1 }
        while end > start && ASCII.isWhitespace(self[end - 1]) { end -= 1 }
        return slice(start, end)
    }

    /// Index of the first `byte` at or after `start`, or nil.
    func firstIndex(of byte: UInt8, from start: Int = 0) -> Int? {
        var index = start
        while index < count {
            if self[index] == byte { return index }
            index += 1
        }
        return nil
    }

    /// Index of the first byte at or after `start` that is one of `a`, `b` or `c`, or `count`.
    func firstIndex(ofAny a: UInt8, _ b: UInt8, _ c: UInt8, from start: Int) -> Int {
        var index = start
        while index < count {
            let byte = self[index]
            if byte == a || byte == b || byte == c { return index }
            index += 1
        }
        return count
    }

    /// Whether the bytes equal `lowercased` ignoring ASCII case; `lowercased` must be lowercase.
    func equalsIgnoringASCIICase(_ lowercased: [UInt8]) -> Bool {
        guard count == lowercased.count else { return false }
        for index in 0..<count where ASCII.lowercased(self[index]) != lowercased[index] {
            return false
        }
        return true
    }
}

/// ASCII classification used by the scanners.
enum ASCII {
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// Lowercase UTF-8 bytes of `text` (ASCII letters only are folded).
    static func lowercasedBytes(_ text: String) -> [UInt8] {
        text.utf8.map(lowercased)
    }
}
