/// A JSON number kept as the text it was written with, so `1.0`, `1`, `1e3` and integers beyond
/// a Double's 53 bits read back and write out exactly as they came (a credential may be a number
/// whose fingerprint must come from the text as sent).
///
/// Equality is numeric: `1` equals `1.0` (and integers beyond 2^53 equal the Double they round to).
///
/// A string literal is a number's text (`"12345678901234567890"`); `JSONValue.number(_:)` takes
/// a Double for numbers written as numbers.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The number's text: RFC 8259 §6 syntax for every finite number; `Infinity`, `-Infinity` or
    /// `NaN` for a non-finite one (JSON5 allows them; JSON text writes them as `null`).
    public let text: String

    /// A number from text the caller has checked against the RFC 8259 grammar (the parsers do).
    package init(validatedText text: String) {
        self.text = text
    }

    /// A number from its JSON text; nil when `text` is not an RFC 8259 number.
    public init?(text: String) {
        guard Self.isValid(text.utf8) else { return nil }
        self.text = text
    }

    /// A number from a Double. Integral values up to 2^53 get no fraction (`401`, not `401.0`, and
    /// `0` for -0); others the shortest text that reads back to the same Double.
    public init(_ value: Double) {
        if value.isNaN {
            text = "NaN"
        } else if value.isInfinite {
            text = value < 0 ? "-Infinity" : "Infinity"
        } else if value == value.rounded(), abs(value) <= 9_007_199_254_740_992 {
            text = value == 0 ? "0" : String(Int64(value))
        } else {
            // Swift prints the shortest round-tripping form; its exponent form ("1e-07") is valid JSON.
            text = "\(value)"
        }
    }

    /// A number from an integer, exactly.
    public init(_ value: some BinaryInteger) {
        text = String(value)
    }

    /// A number from its text, which must be an RFC 8259 number.
    public init(stringLiteral text: String) {
        precondition(Self.isValid(text.utf8), "'\(text)' is not a JSON number")
        self.text = text
    }

    /// The value as a Double (the nearest one; infinite when the text is beyond its range).
    public var double: Double {
        switch text {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default: return Double(text) ?? .nan
        }
    }

    /// The value when the text is an integer (no fraction, no exponent) that fits in Int64.
    public var int64: Int64? { Int64(text) }

    /// Whether the number is finite: JSON text can carry it.
    public var isFinite: Bool { double.isFinite }

    public var description: String { text }

    /// Whether the number is not a number (JSON5's `NaN`).
    public var isNaN: Bool { double.isNaN }

    /// Numeric equality, as JSON readers mostly compare (RFC 8259 §6: numbers are IEEE doubles
    /// to most of them): the same text, or the same Double. ``text`` tells `1.0` from `1` and
    /// long integers apart where that matters.
    public static func == (left: JSONNumber, right: JSONNumber) -> Bool {
        left.text == right.text || left.double == right.double
    }

    /// Hashes by the Double: numbers that are equal have equal Doubles.
    public func hash(into hasher: inout Hasher) {
        let value = double
        hasher.combine(value == 0 ? 0 : value)
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` (RFC 8259 §6), the whole of `utf8`.
    package static func isValid(_ utf8: some Collection<UInt8>) -> Bool {
        var bytes = utf8.makeIterator()
        var next = bytes.next()
        func digits() -> Int {
            var count = 0
            while let byte = next, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                count += 1
                next = bytes.next()
            }
            return count
        }
        if next == UInt8(ascii: "-") { next = bytes.next() }
        if next == UInt8(ascii: "0") {
            next = bytes.next()
        } else if digits() == 0 {
            return false
        }
        if next == UInt8(ascii: ".") {
            next = bytes.next()
            guard digits() > 0 else { return false }
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            next = bytes.next()
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { next = bytes.next() }
            guard digits() > 0 else { return false }
        }
        return next == nil
    }
}
