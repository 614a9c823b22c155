import FaultlineCore

/// A strict JSON parser (RFC 8259) for one trace line, with byte columns in its errors.
///
/// Written for the trace instead of using JSONSerialization because the reader must tell
/// integers from other numbers and booleans from numbers exactly (Foundation on Linux blurs
/// both through NSNumber), report where a line goes wrong, and reject duplicate keys, which
/// would otherwise let one line say two things.
struct JSONParser {
    /// Where and why a line is not valid JSON.
    struct Failure: Error {
        /// 1-based byte column.
        let column: Int
        let message: String
    }

    /// Nesting deeper than this is refused, so a hostile line cannot exhaust the stack.
    static let maximumDepth = 64

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses `bytes` as exactly one JSON value, optionally surrounded by whitespace.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.position == bytes.count else {
            throw parser.failure("unexpected \(parser.describeCurrent()) after the end of the JSON value")
        }
        return value
    }

    private mutating func parseValue() throws(Failure) -> JSONValue {
        guard position < bytes.count else { throw endOfLine("a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("expected a value, found \(describeCurrent())")
        }
    }

    private mutating func parseObject() throws(Failure) -> JSONValue {
        try enterContainer()
        position += 1  // "{"
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if try peek("an object key or '}'") == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard try peek("an object key") == UInt8(ascii: "\"") else {
                throw failure("expected an object key in quotes, found \(describeCurrent())")
            }
            let keyColumn = position + 1
            let key = try parseString()
            skipWhitespace()
            guard try peek("':'") == UInt8(ascii: ":") else {
                throw failure("expected ':', found \(describeCurrent())")
            }
            position += 1
            skipWhitespace()
            let value = try parseValue()
            guard members.updateValue(value, forKey: key) == nil else {
                throw Failure(column: keyColumn, message: "duplicate key \"\(key)\"")
            }
            skipWhitespace()
            let next = try peek("',' or '}'")
            position += 1
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else {
                position -= 1
                throw failure("expected ',' or '}', found \(describeCurrent())")
            }
        }
        depth -= 1
        return .object(members)
    }

    private mutating func parseArray() throws(Failure) -> JSONValue {
        try enterContainer()
        position += 1  // "["
        var elements: [JSONValue] = []
        skipWhitespace()
        if try peek("a value or ']'") == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            let next = try peek("',' or ']'")
            position += 1
            if next == UInt8(ascii: "]") { break }
            guard next == UInt8(ascii: ",") else {
                position -= 1
                throw failure("expected ',' or ']', found \(describeCurrent())")
            }
        }
        depth -= 1
        return .array(elements)
    }

    /// Parses a string starting at its opening quote; the result must be valid UTF-8.
    private mutating func parseString() throws(Failure) -> String {
        let startColumn = position + 1
        position += 1  // opening quote
        var decoded: [UInt8] = []
        var runStart = position
        while true {
            guard position < bytes.count else { throw endOfLine("the closing '\"' of a string") }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 { throw failure("control character \(describeCurrent()) in a string must be escaped") }
            if byte != UInt8(ascii: "\\") {
                position += 1
                continue
            }
            decoded.append(contentsOf: bytes.slice(runStart, position))
            try parseEscape(into: &decoded)
            runStart = position
        }
        let text: String?
        if decoded.isEmpty {
            text = Self.validatedString(bytes.slice(runStart, position))
        } else {
            decoded.append(contentsOf: bytes.slice(runStart, position))
            text = decoded.withUnsafeBufferPointer { Self.validatedString($0) }
        }
        position += 1  // closing quote
        guard let text else { throw Failure(column: startColumn, message: "string is not valid UTF-8") }
        return text
    }

    /// The string for `utf8`, or nil when it is not valid UTF-8. `String(decoding:)` repairs
    /// invalid input with U+FFFD, so the input was valid exactly when nothing changed; ASCII,
    /// the common case, needs no second look. (Cheaper here than the generic `String(validating:)`.)
    private static func validatedString(_ utf8: UnsafeBufferPointer<UInt8>) -> String? {
        let string = String(decoding: utf8, as: UTF8.self)
        if utf8.allSatisfy({ $0 < 0x80 }) { return string }
        return string.utf8.elementsEqual(utf8) ? string : nil
    }

    /// Parses one escape sequence (the position is at its backslash) into UTF-8 bytes.
    private mutating func parseEscape(into decoded: inout [UInt8]) throws(Failure) {
        guard let problem = JSONEscape.decode(bytes, at: &position, into: &decoded, loneSurrogates: .refuse) else {
            return
        }
        switch problem {
        case .truncated(let expected):
            throw endOfLine(expected)
        case .unknownLetter(let letter, let at):
            position = at
            throw failure("invalid escape '\\\(Unicode.Scalar(letter))' in a string")
        case .notHex(let at):
            position = at
            throw failure("expected a hex digit in \\u escape, found \(describeCurrent())")
        case .unpairedSurrogate:
            throw failure("unpaired surrogate in \\u escape")
        }
    }

    /// `number = [ minus ] int [ frac ] [ exp ]` (RFC 8259 §6).
    private mutating func parseNumber() throws(Failure) -> JSONValue {
        let start = position
        var isInteger = true
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count else { throw endOfLine("digits of a number") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            guard skipDigits() > 0 else { throw failure("expected a digit, found \(describeCurrent())") }
        }
        if position < bytes.count && bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard skipDigits() > 0 else { throw failure("expected a digit after '.', found \(describeCurrent())") }
        }
        if position < bytes.count && (bytes[position] | 0x20) == UInt8(ascii: "e") {
            isInteger = false
            position += 1
            if position < bytes.count && (bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-"))
            {
                position += 1
            }
            guard skipDigits() > 0 else {
                throw failure("expected a digit in the exponent, found \(describeCurrent())")
            }
        }
        let text = String(decoding: bytes.slice(start, position), as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .int(integer) }
        guard let number = Double(text), number.isFinite else {
            throw Failure(column: start + 1, message: "number \(text) is out of range")
        }
        return .number(number)
    }

    /// Skips ASCII digits and returns how many there were.
    private mutating func skipDigits() -> Int {
        let start = position
        while position < bytes.count && bytes[position] >= UInt8(ascii: "0") && bytes[position] <= UInt8(ascii: "9") {
            position += 1
        }
        return position - start
    }

    private mutating func parseLiteral(_ literal: StaticString, _ value: JSONValue) throws(Failure) -> JSONValue {
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for byte in expected {
            guard position < bytes.count else { throw endOfLine("'\(literal)'") }
            guard bytes[position] == byte else { throw failure("expected '\(literal)', found \(describeCurrent())") }
            position += 1
        }
        return value
    }

    private mutating func enterContainer() throws(Failure) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// The byte at the position, or a failure saying the line ended while expecting `expected`.
    private func peek(_ expected: String) throws(Failure) -> UInt8 {
        guard position < bytes.count else { throw endOfLine(expected) }
        return bytes[position]
    }

    private func failure(_ message: String) -> Failure {
        Failure(column: position + 1, message: message)
    }

    private func endOfLine(_ expected: String) -> Failure {
        Failure(column: position + 1, message: "line ends where \(expected) was expected (truncated line?)")
    }

    private func describeCurrent() -> String {
        guard position < bytes.count else { return "the end of the line" }
        let byte = bytes[position]
        if byte >= 0x21 && byte < 0x7F { return "'\(Unicode.Scalar(byte))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }
}
