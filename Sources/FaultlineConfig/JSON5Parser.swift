import FaultlineCore

/// Recursive-descent JSON5 reader over UTF-8 bytes.
///
/// Theory of operation: a cursor (`index`, `line`, `column`) walks the bytes. Structural
/// characters are ASCII and are consumed byte by byte; anything at or above 0x80 is decoded (and
/// validated) as one Unicode scalar so columns count scalars. Every error is thrown at the
/// cursor's position when the offending character is the one under it, or at a saved start
/// position for constructs that are only known to be wrong later (an unterminated string or
/// comment, a duplicate key, too deep nesting).
struct JSON5Parser {
    let bytes: [UInt8]
    let file: String
    let maxDepth: Int
    var index = 0
    var line = 1
    var column = 1
    private var depth = 0

    init(bytes: [UInt8], file: String, maxDepth: Int) {
        self.bytes = bytes
        self.file = file
        self.maxDepth = maxDepth
    }

    var location: SourceLocation { SourceLocation(file: file, line: line, column: column) }

    var currentByte: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Where a value is being read, for "expected a value ..." messages.
    enum Slot {
        case document
        case member(String)
        case element
    }

    // MARK: Document and values

    mutating func parseDocument() throws(ConfigError) -> ConfigNode {
        try skipTrivia()
        let value = try parseValue(in: .document)
        try skipTrivia()
        if index < bytes.count {
            throw ConfigError(
                "expected the end of the file after the top-level value, found \(try describeCurrent())", at: location)
        }
        return value
    }

    mutating func parseValue(in slot: Slot) throws(ConfigError) -> ConfigNode {
        let start = location
        guard let byte = currentByte else { throw try expectedValue(in: slot) }
        switch byte {
        case UInt8(ascii: "{"):
            return try parseObject()
        case UInt8(ascii: "["):
            return try parseArray()
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return Self.scalar(.string(try parseString()), at: start)
        case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return Self.scalar(.number(try parseNumber()), at: start)
        default:
            guard try startsIdentifierName() else { throw try expectedValue(in: slot) }
            let word = try parseIdentifierName()
            switch word {
            case "null": return Self.scalar(.null, at: start)
            case "true": return Self.scalar(.bool(true), at: start)
            case "false": return Self.scalar(.bool(false), at: start)
            case "Infinity": return Self.scalar(.number(JSONNumber(Double.infinity)), at: start)
            case "NaN": return Self.scalar(.number(JSONNumber(Double.nan)), at: start)
            default:
                throw ConfigError(
                    "\(expectedValueText(in: slot)), found '\(word)' (a string needs quotes: \"\(word)\")", at: start)
            }
        }
    }

    private static func scalar(_ value: JSONValue, at start: SourceLocation) -> ConfigNode {
        ConfigNode(value, positions: SourcePositions(location: start))
    }

    private func expectedValueText(in slot: Slot) -> String {
        switch slot {
        case .document: return "expected a value"
        case .member(let key): return "expected a value for '\(key)'"
        case .element: return "expected an array element or ']'"
        }
    }

    private func expectedValue(in slot: Slot) throws(ConfigError) -> ConfigError {
        ConfigError("\(expectedValueText(in: slot)), found \(try describeCurrent())", at: location)
    }

    // MARK: Containers

    private mutating func enterContainer(at start: SourceLocation) throws(ConfigError) {
        depth += 1
        if depth > maxDepth {
            throw ConfigError("arrays and objects are nested more than \(maxDepth) levels deep", at: start)
        }
        consumeASCII()
    }

    private mutating func parseObject() throws(ConfigError) -> ConfigNode {
        let start = location
        try enterContainer(at: start)
        var members: [JSONMember] = []
        var positions = SourcePositions(location: start)
        var firstKeyLocations: [String: SourceLocation] = [:]
        try skipTrivia()
        while try !consumeCloser("}", expecting: "a key", container: "object", openedAt: start) {
            let keyLocation = location
            let key = try parseKey()
            if let first = firstKeyLocations[key] {
                throw ConfigError(
                    "duplicate key '\(key)' (first defined at \(first.lineColumn))", at: keyLocation)
            }
            firstKeyLocations[key] = keyLocation
            try skipTrivia()
            guard currentByte == UInt8(ascii: ":") else {
                throw ConfigError("expected ':' after the key '\(key)', found \(try describeCurrent())", at: location)
            }
            consumeASCII()
            try skipTrivia()
            let value = try parseValue(in: .member(key))
            members.append(JSONMember(key: key, value: value.value))
            positions.keyLocations.append(keyLocation)
            positions.children.append(value.positions)
            if try consumeSeparator(closer: "}", after: "the value of '\(key)'", container: "object", openedAt: start) {
                break
            }
        }
        depth -= 1
        return ConfigNode(.object(members), positions: positions)
    }

    /// Before a member or element: consumes `closer` (true: the container ends) or leaves the
    /// next one to be read (false); the end of the file is an error naming what was expected and
    /// where the container opened.
    private mutating func consumeCloser(
        _ closer: Unicode.Scalar, expecting item: String, container: String, openedAt start: SourceLocation
    ) throws(ConfigError) -> Bool {
        guard let byte = currentByte else {
            throw ConfigError(
                "expected \(item) or '\(closer)', found the end of the file "
                    + "(the \(container) opened at \(start.lineColumn) is not closed)",
                at: location)
        }
        guard byte == UInt8(ascii: closer) else { return false }
        consumeASCII()
        return true
    }

    /// After a member or element: consumes `,` (false: more may follow) or `closer` (true: the
    /// container ends); anything else is an error naming what came before and where the
    /// container opened.
    private mutating func consumeSeparator(
        closer: Unicode.Scalar, after item: String, container: String, openedAt start: SourceLocation
    ) throws(ConfigError) -> Bool {
        try skipTrivia()
        if currentByte == UInt8(ascii: ",") {
            consumeASCII()
            try skipTrivia()
            return false
        }
        if currentByte == UInt8(ascii: closer) {
            consumeASCII()
            return true
        }
        throw ConfigError(
            "expected ',' or '\(closer)' after \(item), "
                + "found \(try describeCurrent(unclosed: "the \(container) opened at \(start.lineColumn)"))",
            at: location)
    }

    private mutating func parseKey() throws(ConfigError) -> String {
        guard let byte = currentByte else { preconditionFailure("parseKey at the end of input") }
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") { return try parseString() }
        if try startsIdentifierName() { return try parseIdentifierName() }
        throw ConfigError("expected a key or '}', found \(try describeCurrent())", at: location)
    }

    private mutating func parseArray() throws(ConfigError) -> ConfigNode {
        let start = location
        try enterContainer(at: start)
        var elements: [JSONValue] = []
        var positions = SourcePositions(location: start)
        try skipTrivia()
        while try !consumeCloser("]", expecting: "an array element", container: "array", openedAt: start) {
            let element = try parseValue(in: .element)
            elements.append(element.value)
            positions.children.append(element.positions)
            if try consumeSeparator(closer: "]", after: "an array element", container: "array", openedAt: start) {
                break
            }
        }
        depth -= 1
        return ConfigNode(.array(elements), positions: positions)
    }

    // MARK: Messages

    /// How the character under the cursor reads in a message: `'x'`, `a line break`, `U+0007`,
    /// `the end of the file` (naming the unclosed container when there is one).
    func describeCurrent(unclosed container: String? = nil) throws(ConfigError) -> String {
        guard index < bytes.count else {
            guard let container else { return "the end of the file" }
            return "the end of the file (\(container) is not closed)"
        }
        let scalar = try peekScalar().scalar
        if isLineTerminator(scalar) { return "a line break" }
        if scalar.value < 0x20 || scalar.value == 0x7F || scalar.properties.generalCategory == .format {
            return "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
        }
        return "'\(Character(scalar))'"
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
