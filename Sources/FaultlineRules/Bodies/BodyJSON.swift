import FaultlineCore

/// A JSON value read from a message body (RFC 8259), for `body.json` matches and for
/// credentials in JSON responses.
///
/// Why not `ConfigValue`: a credential may be a JSON number (`"user_id": 12345678901234567890`)
/// and its fingerprint must come from the text as sent, which a `Double` cannot keep. Numbers are
/// therefore kept as their source text and compared as numbers only when a rule asks.
///
/// The parser is strict (RFC 8259 grammar, no comments or trailing commas: this is wire data,
/// not a hand-written file) and bounded: nesting deeper than `maximumDepth` is refused rather
/// than recursed into, so a hostile body cannot exhaust the stack. Duplicate object keys keep
/// the last value (RFC 8259 §4 leaves this open; JavaScript's `JSON.parse` does the same).
package indirect enum BodyJSON: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number's source text, valid per RFC 8259 §6.
    case number(String)
    case string(String)
    case array([BodyJSON])
    case object([String: BodyJSON])

    static let maximumDepth = 256

    /// Parses a whole body; nil when it is not one JSON text (a UTF-8 byte order mark is
    /// skipped, as RFC 8259 §8.1 allows).
    package static func parse(_ bytes: [UInt8]) -> BodyJSON? {
        var parser = BodyJSONParser(bytes: bytes)
        return parser.document()
    }
}

private struct BodyJSONParser {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    mutating func document() -> BodyJSON? {
        guard let value = value(depth: 0) else { return nil }
        skipWhitespace()
        return index == bytes.count ? value : nil
    }

    private mutating func value(depth: Int) -> BodyJSON? {
        guard depth < BodyJSON.maximumDepth else { return nil }
        skipWhitespace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object(depth: depth)
        case UInt8(ascii: "["): return array(depth: depth)
        case UInt8(ascii: "\""): return string().map(BodyJSON.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    private mutating func object(depth: Int) -> BodyJSON? {
        index += 1
        var members: [String: BodyJSON] = [:]
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")), let member = value(depth: depth + 1) else { return nil }
            members[key] = member
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "}")) ? .object(members) : nil
        }
    }

    private mutating func array(depth: Int) -> BodyJSON? {
        index += 1
        var elements: [BodyJSON] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return .array(elements) }
        while true {
            guard let element = value(depth: depth + 1) else { return nil }
            elements.append(element)
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "]")) ? .array(elements) : nil
        }
    }

    /// A string starting at the opening quote (RFC 8259 §7).
    private mutating func string() -> String? {
        index += 1
        var output: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: output, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index -= 1
                let failed = bytes.withUnsafeBufferPointer { buffer in
                    JSONEscape.decode(buffer, at: &index, into: &output, loneSurrogates: .replace) != nil
                }
                if failed { return nil }
            case 0x00..<0x20:
                return nil  // control characters must be escaped
            default:
                output.append(byte)
            }
        }
        return nil
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` (RFC 8259 §6).
    private mutating func number() -> BodyJSON? {
        let start = index
        _ = consume(UInt8(ascii: "-"))
        if consume(UInt8(ascii: "0")) {
            // no leading zeros
        } else if digits() == 0 {
            return nil
        }
        if consume(UInt8(ascii: ".")), digits() == 0 { return nil }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            if digits() == 0 { return nil }
        }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }

    private mutating func literal(_ word: StaticString, _ value: BodyJSON) -> BodyJSON? {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return nil }
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
        guard bytes[index..<index + count].elementsEqual(expected) else { return nil }
        index += count
        return value
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }
}
