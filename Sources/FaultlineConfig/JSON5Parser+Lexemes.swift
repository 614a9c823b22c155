import FaultlineCore

/// Strings, numbers and identifier names (JSON5 §5–§7, which defer to ECMAScript 5.1 §7.6 and §7.8).
extension JSON5Parser {
    // MARK: Strings

    /// Reads a single- or double-quoted string; the cursor is on the opening quote.
    mutating func parseString() throws(ConfigError) -> String {
        let start = location
        let quote = bytes[index]
        consumeASCII()
        // Fast path: printable ASCII up to the closing quote needs no decoding or escapes, and
        // moves the column by its length (most keys and values in rules and JSON bodies).
        var end = index
        while end < bytes.count, bytes[end] != quote, bytes[end] != UInt8(ascii: "\\"),
            (0x20..<0x80).contains(bytes[end])
        {
            end += 1
        }
        if end < bytes.count, bytes[end] == quote {
            let text = String(decoding: bytes[index..<end], as: UTF8.self)
            column += end - index + 1
            index = end + 1
            return text
        }
        var buffer = Array(bytes[index..<end])
        column += end - index
        index = end
        while let byte = currentByte {
            switch byte {
            case quote:
                consumeASCII()
                return String(decoding: buffer, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &buffer)
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw ConfigError(
                    "line break inside a string (close the string first, write \\n, or end the line with \\ to continue it)",
                    at: location)
            case 0..<0x80:
                buffer.append(byte)
                consumeASCII()
            default:
                // U+2028 and U+2029 may appear unescaped in JSON5 strings (they still end a line).
                let (scalar, length) = try peekScalar()
                buffer.append(contentsOf: bytes[index..<index + length])
                consume(scalar, length: length)
            }
        }
        let closing = quote == UInt8(ascii: "'") ? "'" : "\""
        throw ConfigError("unterminated string: no closing \(closing) before the end of the file", at: start)
    }

    /// Reads one escape sequence (the cursor is on the backslash) and appends its UTF-8. JSON's
    /// own escapes go through the package's one JSON escape decoder (`JSONEscape`); JSON5 adds
    /// `\v`, `\0`, `\x`, line continuations and any other character escaping itself.
    private mutating func parseEscape(into buffer: inout [UInt8]) throws(ConfigError) {
        let start = location
        consumeASCII()
        guard let byte = currentByte else {
            throw ConfigError("expected an escaped character after '\\', found the end of the file", at: location)
        }
        func append(_ scalar: Unicode.Scalar) { buffer.append(contentsOf: Array(String(scalar).utf8)) }
        switch byte {
        case UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"),
            UInt8(ascii: "u"):
            try parseJSONEscape(from: start, into: &buffer)
            return
        case UInt8(ascii: "v"): append("\u{0B}")
        case UInt8(ascii: "0"):
            if index + 1 < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index + 1]) {
                throw ConfigError("'\\0' must not be followed by a digit (JSON5 has no octal escapes)", at: start)
            }
            append("\u{0}")
        case UInt8(ascii: "1")...UInt8(ascii: "9"):
            throw ConfigError(
                "'\\\(Character(Unicode.Scalar(byte)))' is not a valid escape (JSON5 has no octal escapes)", at: start)
        case UInt8(ascii: "x"):
            consumeASCII()
            append(Unicode.Scalar(UInt8(try parseHexDigits(2, after: "\\x"))))
            return
        default:
            let (scalar, length) = try peekScalar()
            if isLineTerminator(scalar) {
                // Line continuation: the backslash and the line break (CR LF as one) vanish.
                consume(scalar, length: length)
                if scalar == "\r", currentByte == UInt8(ascii: "\n") { consume("\n", length: 1) }
                return
            }
            // Any other character (quotes, backslash, '/', letters...) escapes to itself.
            buffer.append(contentsOf: bytes[index..<index + length])
            consume(scalar, length: length)
            return
        }
        consumeASCII()
    }

    /// Decodes a JSON escape whose backslash is at `start` (the cursor is on its letter), with a
    /// `\u` surrogate pair as one character. A lone surrogate cannot be held in a Swift string: an
    /// error. Every byte of a JSON escape is ASCII, so the column moves by the bytes read.
    private mutating func parseJSONEscape(from start: SourceLocation, into buffer: inout [UInt8]) throws(ConfigError) {
        var next = index - 1
        let failure = bytes.withUnsafeBufferPointer {
            JSONEscape.decode($0, at: &next, into: &buffer, loneSurrogates: .refuse)
        }
        column += next - index
        index = next
        switch failure {
        case nil:
            return
        case .truncated?, .notHex?:
            throw ConfigError("expected 4 hex digits after '\\u', found \(try describeCurrent())", at: location)
        case .unpairedSurrogate(let unit, followedBy: let other?)?:
            throw ConfigError(
                "'\\u\(hex4(other))' is not a UTF-16 low surrogate, which must follow '\\u\(hex4(unit))'",
                at: SourceLocation(file: file, line: start.line, column: start.column + 6))
        case .unpairedSurrogate(let unit, followedBy: nil)? where unit >= 0xDC00:
            throw ConfigError("'\\u\(hex4(unit))' is a lone UTF-16 low surrogate", at: start)
        case .unpairedSurrogate(let unit, followedBy: nil)?:
            throw ConfigError(
                "'\\u\(hex4(unit))' is a UTF-16 high surrogate without the '\\uDC00'...'\\uDFFF' that must follow it",
                at: start)
        case .unknownLetter?:
            // Not reached: only JSON's own letters come here.
            throw ConfigError("not a valid escape", at: start)
        }
    }

    private func hex4(_ value: UInt32) -> String { String(value, radix: 16, uppercase: true).leftPadded(to: 4) }

    private mutating func parseHexDigits(_ count: Int, after prefix: String) throws(ConfigError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<count {
            guard let byte = currentByte, let digit = HexDigit.value(byte) else {
                throw ConfigError(
                    "expected \(count) hex digits after '\(prefix)', found \(try describeCurrent())", at: location)
            }
            value = value << 4 | UInt32(digit)
            consumeASCII()
        }
        return value
    }

    // MARK: Numbers

    /// Reads a JSON5 number: optional sign, then `Infinity`, `NaN`, `0x` hex digits or a decimal
    /// literal whose integer or fraction part (not both) may be empty. A number written as strict
    /// JSON keeps its text (`1.50`, big integers); the JSON5-only forms get their value's
    /// canonical text.
    mutating func parseNumber() throws(ConfigError) -> JSONNumber {
        let startIndex = index
        let value = try parseNumberValue()
        let text = bytes[startIndex..<index]
        if JSONNumber.isValid(text) { return JSONNumber(validatedText: String(decoding: text, as: UTF8.self)) }
        return JSONNumber(value)
    }

    private mutating func parseNumberValue() throws(ConfigError) -> Double {
        let start = location
        var sign: Double = 1
        if currentByte == UInt8(ascii: "-") || currentByte == UInt8(ascii: "+") {
            if currentByte == UInt8(ascii: "-") { sign = -1 }
            consumeASCII()
        }
        let value: Double
        var spelledInfinity = false
        if currentByte == UInt8(ascii: "I") || currentByte == UInt8(ascii: "N") {
            let wordStart = location
            let word = try parseIdentifierName()
            switch word {
            case "Infinity":
                value = .infinity
                spelledInfinity = true
            case "NaN": value = .nan
            default: throw ConfigError("expected a number, found '\(word)'", at: wordStart)
            }
        } else if currentByte == UInt8(ascii: "0"), index + 1 < bytes.count,
            bytes[index + 1] == UInt8(ascii: "x") || bytes[index + 1] == UInt8(ascii: "X")
        {
            consumeASCII()
            consumeASCII()
            guard let first = currentByte, HexDigit.value(first) != nil else {
                throw ConfigError("expected a hex digit after '0x', found \(try describeCurrent())", at: location)
            }
            var accumulated: Double = 0
            while let byte = currentByte, let digit = HexDigit.value(byte) {
                accumulated = accumulated * 16 + Double(digit)
                consumeASCII()
            }
            value = accumulated
        } else {
            value = try parseDecimal()
        }
        try checkNumberEnd()
        if value.isInfinite, !spelledInfinity {
            throw ConfigError("number is too large for a 64-bit floating-point value", at: start)
        }
        return sign * value
    }

    private mutating func parseDecimal() throws(ConfigError) -> Double {
        let digitRange = UInt8(ascii: "0")...UInt8(ascii: "9")
        var text: [UInt8] = []
        var integerDigits = 0
        while let byte = currentByte, digitRange.contains(byte) {
            if integerDigits == 1, text.first == UInt8(ascii: "0") {
                throw ConfigError("a number must not have leading zeros", at: location)
            }
            text.append(byte)
            integerDigits += 1
            consumeASCII()
        }
        if integerDigits == 0 { text.append(UInt8(ascii: "0")) }
        var fractionDigits = 0
        if currentByte == UInt8(ascii: ".") {
            consumeASCII()
            text.append(UInt8(ascii: "."))
            while let byte = currentByte, digitRange.contains(byte) {
                text.append(byte)
                fractionDigits += 1
                consumeASCII()
            }
            if fractionDigits == 0 { text.append(UInt8(ascii: "0")) }
        }
        if integerDigits == 0, fractionDigits == 0 {
            throw ConfigError("expected a digit, found \(try describeCurrent())", at: location)
        }
        if currentByte == UInt8(ascii: "e") || currentByte == UInt8(ascii: "E") {
            consumeASCII()
            text.append(UInt8(ascii: "e"))
            if currentByte == UInt8(ascii: "+") || currentByte == UInt8(ascii: "-") {
                text.append(bytes[index])
                consumeASCII()
            }
            guard let first = currentByte, digitRange.contains(first) else {
                throw ConfigError("expected a digit in the exponent, found \(try describeCurrent())", at: location)
            }
            while let byte = currentByte, digitRange.contains(byte) {
                text.append(byte)
                consumeASCII()
            }
        }
        guard let value = Double(String(decoding: text, as: UTF8.self)) else {
            preconditionFailure("validated decimal literal did not convert")
        }
        return value
    }

    /// A number must not run into letters or digits (`12px`, `0x1g`, `1.2.3`).
    private mutating func checkNumberEnd() throws(ConfigError) {
        guard let byte = currentByte else { return }
        let runsOn = byte == UInt8(ascii: ".") || byte == UInt8(ascii: "\\")
        if try runsOn ? true : isIdentifierPart(peekScalar().scalar) {
            throw ConfigError("unexpected \(try describeCurrent()) after a number", at: location)
        }
    }

    // MARK: Identifier names

    /// ECMAScript 5.1 IdentifierStart: Unicode letters (Lu, Ll, Lt, Lm, Lo, Nl), `$` and `_`
    /// (a `\uXXXX` escape is handled by the caller).
    func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "$" || scalar == "_" { return true }
        if scalar.isASCII { return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .letterNumber:
            return true
        default: return false
        }
    }

    /// IdentifierPart: a start character, combining marks (Mn, Mc), decimal digits (Nd),
    /// connector punctuation (Pc), ZWNJ and ZWJ.
    func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
        if isIdentifierStart(scalar) { return true }
        if scalar.isASCII { return ("0"..."9").contains(scalar) }
        if scalar == "\u{200C}" || scalar == "\u{200D}" { return true }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .decimalNumber, .connectorPunctuation: return true
        default: return false
        }
    }

    /// True when the character under the cursor can start an identifier name (a letter, `$`, `_`
    /// or a `\u` escape). Call only before the end.
    func startsIdentifierName() throws(ConfigError) -> Bool {
        bytes[index] == UInt8(ascii: "\\") ? true : isIdentifierStart(try peekScalar().scalar)
    }

    /// Reads an identifier name (an unquoted key, or a literal such as `true`); the cursor is on
    /// its first character, already known to start an identifier (or a backslash).
    mutating func parseIdentifierName() throws(ConfigError) -> String {
        var scalars = String.UnicodeScalarView()
        while let byte = currentByte {
            let start = location
            let scalar: Unicode.Scalar
            if byte == UInt8(ascii: "\\") {
                consumeASCII()
                guard currentByte == UInt8(ascii: "u") else {
                    throw ConfigError("only '\\uXXXX' escapes may appear in an unquoted key", at: start)
                }
                consumeASCII()
                let value = try parseHexDigits(4, after: "\\u")
                guard let escaped = Unicode.Scalar(value),
                    scalars.isEmpty ? isIdentifierStart(escaped) : isIdentifierPart(escaped)
                else {
                    throw ConfigError(
                        "'\\u\(hex4(value))' is not a character allowed in an unquoted key; quote the key", at: start)
                }
                scalar = escaped
            } else {
                let (decoded, length) = try peekScalar()
                guard scalars.isEmpty ? isIdentifierStart(decoded) : isIdentifierPart(decoded) else { break }
                consume(decoded, length: length)
                scalar = decoded
            }
            scalars.append(scalar)
        }
        return String(scalars)
    }
}
