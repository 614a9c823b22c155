/// The strict JSON parser (RFC 8259) for ``JSONValue``: trace lines, message bodies, HAR files.
///
/// Written for the package instead of using JSONSerialization because readers must tell integers
/// from other numbers and booleans from numbers exactly (Foundation on Linux blurs both through
/// NSNumber), keep every number's text and every object's member order, report where the text
/// goes wrong, and refuse or settle duplicate keys as they choose. It reads a byte buffer with no
/// Foundation and no copy beyond the strings and arrays it returns: it runs on every trace line
/// and on every body a rule reads.
///
/// Nesting is bounded (``Options/maximumDepth``) so hostile input cannot exhaust the stack.
package struct JSONParser {
    /// What a reader accepts beyond the grammar, and what it refuses within it.
    package struct Options: Sendable {
        /// What a repeated key in one object means.
        package enum DuplicateKeys: Sendable {
            /// An error at the second key.
            case refuse
            /// The last value wins, in the first key's place (JavaScript's `JSON.parse`).
            case keepLast
        }

        /// Arrays and objects nested deeper than this are refused.
        package var maximumDepth: Int
        package var duplicateKeys: DuplicateKeys
        /// What a `\u` surrogate without its other half reads as; with `.replace`, bytes that
        /// are not UTF-8 read as U+FFFD too (one odd character should not hide a whole body),
        /// with `.refuse` they are an error.
        package var loneSurrogates: JSONEscape.LoneSurrogates
        /// Whether a leading UTF-8 byte order mark is skipped (RFC 8259 §8.1 lets a parser).
        package var skipsByteOrderMark: Bool
        /// Whether a number beyond a Double's range (`1e999`) is an error; otherwise its text is
        /// kept like any other (a body passes it through).
        package var refusesHugeNumbers: Bool

        /// Everything refused: for text the package wrote itself (trace lines).
        package static let strict = Options(
            maximumDepth: 64, duplicateKeys: .refuse, loneSurrogates: .refuse, skipsByteOrderMark: false,
            refusesHugeNumbers: true)

        /// For wire data: message bodies, HAR files.
        package static let lenient = Options(
            maximumDepth: 256, duplicateKeys: .keepLast, loneSurrogates: .replace, skipsByteOrderMark: true,
            refusesHugeNumbers: false)

        package init(
            maximumDepth: Int, duplicateKeys: DuplicateKeys, loneSurrogates: JSONEscape.LoneSurrogates,
            skipsByteOrderMark: Bool, refusesHugeNumbers: Bool
        ) {
            self.maximumDepth = maximumDepth
            self.duplicateKeys = duplicateKeys
            self.loneSurrogates = loneSurrogates
            self.skipsByteOrderMark = skipsByteOrderMark
            self.refusesHugeNumbers = refusesHugeNumbers
        }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let options: Options
    private var position = 0
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>, options: Options) {
        self.bytes = bytes
        self.options = options
    }

    /// Parses `bytes` as exactly one JSON value, optionally surrounded by whitespace.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>, options: Options = .strict) throws(JSONSyntaxError)
        -> JSONValue
    {
        var parser = JSONParser(bytes, options: options)
        do {
            return try parser.document()
        } catch {
            throw error.located(in: bytes)
        }
    }

    /// Parses a byte array (a body, a file) as exactly one JSON value.
    package static func parse(_ bytes: [UInt8], options: Options) throws(JSONSyntaxError) -> JSONValue {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONSyntaxError) -> JSONValue in try parse(buffer, options: options) }
        }
        return try result.get()
    }

    /// An error at a byte offset; its line and column are worked out only when it is thrown out.
    private struct Failure: Error {
        let reason: JSONSyntaxError.Reason
        let offset: Int

        /// Lines end at LF (a CR before it is ordinary white space); columns count scalars, so
        /// UTF-8 continuation bytes do not count.
        func located(in bytes: UnsafeBufferPointer<UInt8>) -> JSONSyntaxError {
            var line = 1
            var column = 1
            for byte in bytes[..<min(offset, bytes.count)] {
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
            }
            return JSONSyntaxError(reason, offset: offset, line: line, column: column)
        }
    }

    private mutating func document() throws(Failure) -> JSONValue {
        if options.skipsByteOrderMark, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            position = 3
        }
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard position == bytes.count else {
            throw failure("unexpected \(describeCurrent()) after the end of the JSON value")
        }
        return value
    }

    private mutating func parseValue() throws(Failure) -> JSONValue {
        guard position < bytes.count else { throw truncated("a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw failure("expected a value, found \(describeCurrent())")
        }
    }

    private mutating func parseObject() throws(Failure) -> JSONValue {
        var members: [JSONMember] = []
        // Past a few members a set finds a repeated key faster than a scan of the members.
        var seen: Set<String> = []
        if try enterContainer(emptyWith: UInt8(ascii: "}"), expected: "an object key or '}'") {
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard try peek("an object key") == UInt8(ascii: "\"") else {
                throw failure("expected an object key in quotes, found \(describeCurrent())")
            }
            let keyOffset = position
            let key = try parseString()
            skipWhitespace()
            guard try peek("':'") == UInt8(ascii: ":") else {
                throw failure("expected ':', found \(describeCurrent())")
            }
            position += 1
            skipWhitespace()
            let value = try parseValue()
            if let earlier = Self.index(of: key, in: members, seen: &seen) {
                guard options.duplicateKeys == .keepLast else {
                    throw Failure(reason: .invalid("duplicate key \"\(key)\""), offset: keyOffset)
                }
                members[earlier].value = value
            } else {
                members.append(JSONMember(key: key, value: value))
            }
            if try consumeSeparator(closer: UInt8(ascii: "}"), expected: "',' or '}'") { break }
        }
        depth -= 1
        return .object(members)
    }

    /// Where `key` already is in `members`, or nil (then `key` joins `seen`, once that is in use).
    private static func index(of key: String, in members: [JSONMember], seen: inout Set<String>) -> Int? {
        let scanLimit = 16
        if members.count < scanLimit { return members.firstIndex { $0.key == key } }
        if seen.isEmpty { seen = Set(members.map(\.key)) }
        guard !seen.insert(key).inserted else { return nil }
        return members.firstIndex { $0.key == key }
    }

    private mutating func parseArray() throws(Failure) -> JSONValue {
        var elements: [JSONValue] = []
        if try enterContainer(emptyWith: UInt8(ascii: "]"), expected: "a value or ']'") { return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            if try consumeSeparator(closer: UInt8(ascii: "]"), expected: "',' or ']'") { break }
        }
        depth -= 1
        return .array(elements)
    }

    /// After a member or element: consumes `,` (false: another follows) or `closer` (true: the
    /// container ends); anything else is an error naming what was `expected`.
    private mutating func consumeSeparator(closer: UInt8, expected: String) throws(Failure) -> Bool {
        skipWhitespace()
        let next = try peek(expected)
        if next == closer {
            position += 1
            return true
        }
        guard next == UInt8(ascii: ",") else { throw failure("expected \(expected), found \(describeCurrent())") }
        position += 1
        return false
    }

    /// Parses a string starting at its opening quote.
    private mutating func parseString() throws(Failure) -> String {
        let start = position
        position += 1  // opening quote
        var decoded: [UInt8] = []
        var runStart = position
        while true {
            guard position < bytes.count else { throw truncated("the closing '\"' of a string") }
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
            text = string(bytes.slice(runStart, position))
        } else {
            decoded.append(contentsOf: bytes.slice(runStart, position))
            text = decoded.withUnsafeBufferPointer { string($0) }
        }
        position += 1  // closing quote
        guard let text else { throw Failure(reason: .invalid("string is not valid UTF-8"), offset: start) }
        return text
    }

    /// The string for `utf8`; nil when it is not valid UTF-8 and the options refuse that.
    /// `String(decoding:)` repairs invalid input with U+FFFD, so the input was valid exactly when
    /// nothing changed; ASCII, the common case, needs no second look. (Cheaper here than the
    /// generic `String(validating:)`.)
    private func string(_ utf8: UnsafeBufferPointer<UInt8>) -> String? {
        let string = String(decoding: utf8, as: UTF8.self)
        if options.loneSurrogates == .replace || utf8.allSatisfy({ $0 < 0x80 }) { return string }
        return string.utf8.elementsEqual(utf8) ? string : nil
    }

    /// Parses one escape sequence (the position is at its backslash) into UTF-8 bytes.
    private mutating func parseEscape(into decoded: inout [UInt8]) throws(Failure) {
        guard
            let problem = JSONEscape.decode(
                bytes, at: &position, into: &decoded, loneSurrogates: options.loneSurrogates)
        else { return }
        switch problem {
        case .truncated(let expected):
            throw truncated(expected)
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

    /// `number = [ minus ] int [ frac ] [ exp ]` (RFC 8259 §6), kept as its text.
    private mutating func parseNumber() throws(Failure) -> JSONNumber {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count else { throw truncated("digits of a number") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            guard skipDigits() > 0 else { throw missing("a digit") }
        }
        if position < bytes.count && bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard skipDigits() > 0 else { throw missing("a digit after '.'") }
        }
        if position < bytes.count && (bytes[position] | 0x20) == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count && (bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-"))
            {
                position += 1
            }
            guard skipDigits() > 0 else { throw missing("a digit in the exponent") }
        }
        let number = JSONNumber(validatedText: String(decoding: bytes.slice(start, position), as: UTF8.self))
        if options.refusesHugeNumbers, !number.isFinite {
            throw Failure(reason: .invalid("number \(number.text) is out of range"), offset: start)
        }
        return number
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
            guard position < bytes.count else { throw truncated("'\(literal)'") }
            guard bytes[position] == byte else { throw failure("expected '\(literal)', found \(describeCurrent())") }
            position += 1
        }
        return value
    }

    /// Steps over the opening bracket one level deeper; true when `closer` follows at once (an empty
    /// container, stepped over and left), else the first member or element is next.
    private mutating func enterContainer(emptyWith closer: UInt8, expected: String) throws(Failure) -> Bool {
        depth += 1
        guard depth <= options.maximumDepth else {
            throw failure("nested deeper than \(options.maximumDepth) levels")
        }
        position += 1
        skipWhitespace()
        guard try peek(expected) == closer else { return false }
        position += 1
        depth -= 1
        return true
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// The byte at the position, or a failure saying the text ended while expecting `expected`.
    private func peek(_ expected: String) throws(Failure) -> UInt8 {
        guard position < bytes.count else { throw truncated(expected) }
        return bytes[position]
    }

    private func failure(_ message: String) -> Failure {
        Failure(reason: .invalid(message), offset: position)
    }

    /// `expected` is not at the position: the text is truncated there, or has something else.
    private func missing(_ expected: String) -> Failure {
        position < bytes.count ? failure("expected \(expected), found \(describeCurrent())") : truncated(expected)
    }

    private func truncated(_ expected: String) -> Failure {
        Failure(reason: .truncated(expected: expected), offset: position)
    }

    private func describeCurrent() -> String {
        guard position < bytes.count else { return "the end of the text" }
        let byte = bytes[position]
        if byte >= 0x21 && byte < 0x7F { return "'\(Unicode.Scalar(byte))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Elements `start..<end` as a buffer of their own (no copy).
    @inline(__always)
    fileprivate func slice(_ start: Int, _ end: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: self[start..<end])
    }
}
