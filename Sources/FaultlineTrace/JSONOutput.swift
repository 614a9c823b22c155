/// A growing UTF-8 buffer with the few JSON writing primitives the trace writer needs.
///
/// Written by hand instead of with JSONEncoder because it runs on the proxy's hot path: no
/// intermediate Strings, no Foundation, strings escaped in runs straight from their UTF-8 bytes.
struct JSONOutput {
    var bytes: [UInt8]

    init(capacity: Int = 512) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Appends ASCII text that needs no escaping: punctuation, keys known at compile time.
    mutating func appendRaw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func appendByte(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends `"key":` with the key escaped.
    mutating func appendKey(_ key: String) {
        appendString(key)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Appends `string` as a quoted, escaped JSON string.
    mutating func appendString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        withUTF8(of: string) { appendEscaped($0) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends the inside of a JSON string (no quotes) for `utf8`, escaping as needed.
    ///
    /// Escapes `"`, `\` and every control character (RFC 8259 §7), and also U+0085, U+2028 and
    /// U+2029: JSON allows them raw, but some line readers split on them, and a trace line must
    /// stay one line for every reader. The input is valid UTF-8 (it comes from a Swift String).
    mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        let count = utf8.count
        var runStart = 0
        var index = 0
        while index < count {
            let byte = utf8[index]
            if byte >= 0x20 && byte != 0x22 && byte != 0x5C && byte != 0xC2 && byte != 0xE2 {
                index += 1
                continue
            }
            var escapedLength = 1
            var escape: StaticString? = nil
            var control: UInt16? = nil
            switch byte {
            case 0x22: escape = "\\\""
            case 0x5C: escape = "\\\\"
            case 0x0A: escape = "\\n"
            case 0x0D: escape = "\\r"
            case 0x09: escape = "\\t"
            case 0x08: escape = "\\b"
            case 0x0C: escape = "\\f"
            case 0xC2:
                if index + 1 < count && utf8[index + 1] == 0x85 {
                    control = 0x85
                    escapedLength = 2
                }
            case 0xE2:
                if index + 2 < count && utf8[index + 1] == 0x80 && (utf8[index + 2] == 0xA8 || utf8[index + 2] == 0xA9) {
                    control = utf8[index + 2] == 0xA8 ? 0x2028 : 0x2029
                    escapedLength = 3
                }
            default: control = UInt16(byte)  // the remaining bytes below 0x20
            }
            if escape == nil && control == nil {
                index += 1  // a lead byte of a character that needs no escape
                continue
            }
            if runStart < index {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            }
            if let escape {
                appendRaw(escape)
            } else if let control {
                appendUnicodeEscape(control)
            }
            index += escapedLength
            runStart = index
        }
        if runStart < count {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count]))
        }
    }

    private mutating func appendUnicodeEscape(_ scalar: UInt16) {
        appendRaw("\\u")
        for shift in stride(from: 12, through: 0, by: -4) {
            bytes.append(Self.hexDigits[Int((scalar >> UInt16(shift)) & 0xF)])
        }
    }

    /// Appends a decimal unsigned integer.
    mutating func appendInteger(_ value: UInt64) {
        if value < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        // At most 20 digits; write them backwards into a small stack buffer.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var remaining = value
            var position = 20
            while remaining > 0 {
                position -= 1
                digits[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remaining % 10)
                remaining /= 10
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[position..<20]))
        }
    }

    /// Appends a decimal signed integer.
    mutating func appendInteger(_ value: Int64) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            appendInteger(value.magnitude)
        } else {
            appendInteger(UInt64(value))
        }
    }

    /// Appends a number; JSON has no NaN or infinities, so those become `null`.
    mutating func appendDouble(_ value: Double) {
        guard value.isFinite else {
            appendRaw("null")
            return
        }
        // Swift prints the shortest text that reads back as the same Double ("2.5", "1e-05",
        // "3.0"), always with a '.' or an exponent, so the reader can tell it from an integer.
        var text = value.description
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Appends `"fp:"` plus the first 8 bytes of `code` as 16 lowercase hex digits (no quotes).
    mutating func appendFingerprint(code: UnsafeRawBufferPointer) {
        appendRaw("fp:")
        for index in 0..<8 {
            let byte = code[index]
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0xF)])
        }
    }

    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}

/// Calls `body` with the UTF-8 bytes of `string`, without copying native strings.
@inline(__always)
func withUTF8<Result>(of string: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
    if let result = try string.utf8.withContiguousStorageIfAvailable(body) { return result }
    var copy = string
    return try copy.withUTF8(body)
}
