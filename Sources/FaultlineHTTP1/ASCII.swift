import FaultlineCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte classes and small byte helpers for the HTTP/1.1 grammar.
///
/// The classes are bit masks rather than tables so the hot loops need no array look-up,
/// bounds check or lazily initialised global.
enum ASCII {
    static let tab: UInt8 = 0x09
    static let lf: UInt8 = 0x0A
    static let cr: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22
    static let percent: UInt8 = 0x25
    static let comma: UInt8 = 0x2C
    static let slash: UInt8 = 0x2F
    static let colon: UInt8 = 0x3A
    static let semicolon: UInt8 = 0x3B
    static let equals: UInt8 = 0x3D
    static let question: UInt8 = 0x3F
    static let at: UInt8 = 0x40
    static let backslash: UInt8 = 0x5C
    static let hash: UInt8 = 0x23
    static let asterisk: UInt8 = 0x2A
    static let period: UInt8 = 0x2E
    static let leftBracket: UInt8 = 0x5B
    static let rightBracket: UInt8 = 0x5D

    /// RFC 9110 §5.6.2 `tchar`, in the codec's vocabulary (the definition is `HTTPToken`).
    @inline(__always)
    static func isTokenChar(_ byte: UInt8) -> Bool { HTTPToken.isTokenByte(byte) }

    /// RFC 5234 VCHAR: visible ASCII, 0x21...0x7E.
    @inline(__always)
    static func isVisible(_ byte: UInt8) -> Bool { byte &- 0x21 < 0x5E }

    /// RFC 9110 §5.5: field-vchar / SP / HTAB, where field-vchar includes obs-text (0x80...0xFF).
    @inline(__always)
    static func isFieldValueByte(_ byte: UInt8) -> Bool { byte == tab || (byte >= space && byte != 0x7F) }

    /// RFC 9110 §5.6.3: OWS and BWS are made of SP and HTAB.
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    @inline(__always)
    static func isAlpha(_ byte: UInt8) -> Bool { (byte | 0x20) &- 0x61 < 26 }

    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 { byte &- 0x41 < 26 ? byte | 0x20 : byte }

    /// Index of the first `byte` in `bytes[start..<end]` (memchr is vectorised), or nil.
    @inline(__always)
    static func firstIndex(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
        guard start < end, let base = bytes.baseAddress else { return nil }
        guard let found = memchr(base + start, Int32(byte), end - start) else { return nil }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }

    /// Whether `bytes[start..<end]` equals `lowercaseName` ignoring ASCII case; `lowercaseName` must be lowercase.
    @inline(__always)
    static func equalsIgnoringCase(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ lowercaseName: StaticString
    ) -> Bool {
        guard end - start == lowercaseName.utf8CodeUnitCount else { return false }
        let name = lowercaseName.utf8Start
        var index = 0
        while index < end - start {
            if lowercased(bytes[start + index]) != name[index] { return false }
            index += 1
        }
        return true
    }

    /// A String made from `bytes[start..<end]`, read as UTF-8.
    ///
    /// obs-text bytes that are not valid UTF-8 become U+FFFD: the codec's model is `String`.
    @inline(__always)
    static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// A field value from `bytes[start..<end]`: UTF-8 when the bytes are valid UTF-8 (ASCII
    /// included), otherwise each byte as the Latin-1 scalar of the same number, flagged so the
    /// encoder restores the exact bytes.
    @inline(__always)
    static func fieldValue(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (String, latin1: Bool) {
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<end])
        if !slice.contains(where: { $0 >= 0x80 }) || String(validating: slice, as: UTF8.self) != nil {
            return (String(decoding: slice, as: UTF8.self), false)
        }
        var scalars = String.UnicodeScalarView()
        for byte in slice { scalars.append(Unicode.Scalar(byte)) }
        return (String(scalars), true)
    }

    /// Whether two strings are equal ignoring ASCII case (field names, RFC 9110 §5.1).
    @inline(__always)
    static func equalsIgnoringCase(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.utf8
        let right = rhs.utf8
        guard left.count == right.count else { return false }
        var rightIndex = right.startIndex
        for byte in left {
            if lowercased(byte) != lowercased(right[rightIndex]) { return false }
            right.formIndex(after: &rightIndex)
        }
        return true
    }
}
