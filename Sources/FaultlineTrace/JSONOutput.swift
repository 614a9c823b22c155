/// A growing UTF-8 byte buffer with the few JSON writing primitives the trace writer needs.
///
/// Written by hand instead of with JSONEncoder because it runs on the proxy's hot path: no
/// intermediate Strings, no Foundation, strings escaped in runs straight from their UTF-8 bytes,
/// and raw memory instead of an Array so that the many small appends of one line cost a
/// capacity check and a copy each, not a uniqueness check and a generic append. Noncopyable,
/// so the memory has exactly one owner, which frees it.
struct JSONOutput: ~Copyable, @unchecked Sendable {
    // @unchecked Sendable: the buffer is noncopyable and its memory is reachable only through
    // `base`, which never escapes except as a pointer lent to a closure for its duration. So the
    // value is the sole owner of its bytes, moving it to another thread moves that ownership, and
    // every mutation needs exclusive (`inout`) access, exactly as for an Array.
    private var base: UnsafeMutablePointer<UInt8>
    /// Bytes written so far.
    private(set) var count = 0
    /// Bytes the buffer can hold before it must grow.
    private(set) var capacity: Int

    init(capacity: Int = 512) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Calls `body` with the bytes written so far.
    func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// The bytes written so far, as UTF-8 text.
    var text: String {
        withBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Forgets the contents and keeps the memory.
    mutating func removeAll() {
        count = 0
    }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(toAtLeast: count + extra) }
    }

    private mutating func grow(toAtLeast minimum: Int) {
        let newCapacity = max(minimum, capacity * 2)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// Appends bytes as they are.
    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Appends the contents of another buffer.
    mutating func append(_ other: borrowing JSONOutput) {
        other.withBytes { append($0) }
    }

    /// Appends ASCII text that needs no escaping: punctuation, keys known at compile time.
    @inline(__always)
    mutating func appendRaw(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inline(__always)
    mutating func appendByte(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// Appends `"key":` with the key escaped.
    mutating func appendKey(_ key: String) {
        appendString(key)
        appendByte(UInt8(ascii: ":"))
    }

    /// Appends `string` as a quoted, escaped JSON string.
    mutating func appendString(_ string: String) {
        appendByte(UInt8(ascii: "\""))
        withUTF8(of: string) { appendEscaped($0) }
        appendByte(UInt8(ascii: "\""))
    }

    /// Appends the inside of a JSON string (no quotes) for `utf8`, escaping as needed.
    ///
    /// Escapes `"`, `\` and every control character (RFC 8259 §7), and also U+0085, U+2028 and
    /// U+2029: JSON allows them raw, but some line readers split on them, and a trace line must
    /// stay one line for every reader. The input is valid UTF-8 (it comes from a Swift String).
    mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        // Most strings need no escape (keys, methods, header names and values): checked a word at
        // a time, tail included, and copied in one go.
        if Self.needsNoEscape(utf8) {
            append(utf8)
            return
        }
        let count = utf8.count
        reserve(count)
        guard let raw = UnsafeRawPointer(utf8.baseAddress) else { return }
        var runStart = 0
        var index = 0
        while index < count {
            // Skip eight plain ASCII bytes at a time; most header text is exactly that.
            if index + 8 <= count && !Self.mayNeedEscape(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                index += 8
                continue
            }
            let byte = utf8[index]
            // Fast path: printable ASCII other than '"' and '\', and every byte of a character
            // whose lead byte is neither 0xC2 (U+0080...U+00BF) nor 0xE2 (U+2000...U+2FFF).
            if byte >= 0x20 && byte != 0x22 && byte != 0x5C && byte != 0xC2 && byte != 0xE2 {
                index += 1
                continue
            }
            var escapedLength = 1
            var escape: StaticString? = nil
            var scalar: UInt16? = nil
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
                    scalar = 0x85
                    escapedLength = 2
                }
            case 0xE2:
                if index + 2 < count && utf8[index + 1] == 0x80 && (utf8[index + 2] == 0xA8 || utf8[index + 2] == 0xA9)
                {
                    scalar = utf8[index + 2] == 0xA8 ? 0x2028 : 0x2029
                    escapedLength = 3
                }
            default: scalar = UInt16(byte)  // the other bytes below 0x20
            }
            if escape == nil && scalar == nil {
                index += 1  // the lead byte of a character that needs no escape
                continue
            }
            if runStart < index { append(utf8.slice(runStart, index)) }
            if let escape {
                appendRaw(escape)
            } else if let scalar {
                appendUnicodeEscape(scalar)
            }
            index += escapedLength
            runStart = index
        }
        if runStart < count { append(utf8.slice(runStart, count)) }
    }

    /// Whether no byte of `utf8` needs escaping; false also for any non-ASCII byte (the caller
    /// then looks byte by byte).
    @inline(__always)
    private static func needsNoEscape(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let raw = UnsafeRawPointer(utf8.baseAddress) else { return true }
        let whole = utf8.count & ~7
        var index = 0
        while index < whole {
            if mayNeedEscape(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) { return false }
            index += 8
        }
        guard whole < utf8.count else { return true }
        // The last bytes, fewer than eight, in a word padded with a byte that needs no escape.
        var word: UInt64 = 0x4141_4141_4141_4141  // "AAAAAAAA"
        withUnsafeMutableBytes(of: &word) { $0.copyMemory(from: UnsafeRawBufferPointer(utf8.slice(whole, utf8.count))) }
        return !mayNeedEscape(word)
    }

    /// Whether any of the eight bytes in `word` is below 0x20, a '"', a '\\' or not ASCII (SWAR:
    /// `(v - 0x01..) & ~v & 0x80..` is nonzero when some byte of `v` is zero). False positives
    /// are harmless: the caller then looks at the bytes one by one.
    @inline(__always)
    private static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20) & ~word
        let quote = (quotes &- ones) & ~quotes
        let backslash = (backslashes &- ones) & ~backslashes
        return (control | quote | backslash | word) & high != 0
    }

    private mutating func appendUnicodeEscape(_ scalar: UInt16) {
        appendRaw("\\u")
        for shift in stride(from: 12, through: 0, by: -4) {
            appendByte(Self.hexDigit(Int((scalar >> UInt16(shift)) & 0xF)))
        }
    }

    /// Appends a decimal unsigned integer.
    mutating func appendInteger(_ value: UInt64) {
        if value < 10 {
            appendByte(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        // At most 20 digits; written backwards into a small stack buffer two at a time (a line's
        // `mono_ns` alone has a dozen), each pair copied from a table of "00" to "99".
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            let pairs = Self.digitPairs.utf8Start
            var remaining = value
            var position = 20
            while remaining >= 10 {
                let pair = Int(truncatingIfNeeded: remaining % 100) &* 2
                remaining /= 100
                position -= 2
                digits[position] = pairs[pair]
                digits[position + 1] = pairs[pair + 1]
            }
            // An odd count leaves one digit; an even one leaves 0, which the last pair covered.
            if remaining > 0 {
                position -= 1
                digits[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remaining)
            }
            append(UnsafeBufferPointer(rebasing: digits[position..<20]))
        }
    }

    /// Appends `value` as exactly `width` decimal digits, zeros first: the fraction of a time.
    /// `value` must have no more than `width` digits.
    mutating func appendZeroPadded(_ value: Int, width: Int) {
        precondition(value >= 0 && width > 0, "appendZeroPadded takes a value of 0 or more and a width of 1 or more")
        reserve(width)
        let pairs = Self.digitPairs.utf8Start
        var remaining = value
        var position = count + width
        while position - count >= 2 {
            let pair = (remaining % 100) &* 2
            remaining /= 100
            position -= 2
            base[position] = pairs[pair]
            base[position + 1] = pairs[pair + 1]
        }
        if position > count { base[count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remaining % 10) }
        count += width
    }

    /// "00" to "99", one after the other: the two digits of `n` start at byte `2 * n`.
    private static var digitPairs: StaticString {
        """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """
    }

    /// Appends a decimal signed integer.
    mutating func appendInteger(_ value: Int64) {
        if value < 0 {
            appendByte(UInt8(ascii: "-"))
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
        text.withUTF8 { append($0) }
    }

    /// Appends `"fp:"` plus `code` as 16 lowercase hex digits, most significant first (no quotes).
    mutating func appendFingerprint(_ code: UInt64) {
        appendRaw("fp:")
        reserve(16)
        for shift in stride(from: 60, through: 0, by: -4) {
            base[count] = Self.hexDigit(Int(truncatingIfNeeded: code >> UInt64(shift)) & 0xF)
            count += 1
        }
    }

    @inline(__always)
    private static func hexDigit(_ value: Int) -> UInt8 {
        value < 10
            ? UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value)
            : UInt8(ascii: "a") &+ UInt8(truncatingIfNeeded: value - 10)
    }
}

/// Calls `body` with the UTF-8 bytes of `string`, without copying native strings.
@inline(__always)
func withUTF8<Result>(of string: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
    if let result = try string.utf8.withContiguousStorageIfAvailable(body) { return result }
    var copy = string
    return try copy.withUTF8(body)
}
