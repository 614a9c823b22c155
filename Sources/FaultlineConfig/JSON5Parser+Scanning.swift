/// The cursor: UTF-8 decoding, position tracking, white space and comments.
extension JSON5Parser {
    /// Decodes the scalar under the cursor without consuming it. Throws on invalid UTF-8
    /// (overlong forms, surrogates and values past U+10FFFF included). Call only before the end.
    func peekScalar() throws(ConfigError) -> (scalar: Unicode.Scalar, length: Int) {
        let lead = bytes[index]
        if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
        let length: Int
        var value: UInt32
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF:
            length = 2
            value = UInt32(lead & 0x1F)
        case 0xE0...0xEF:
            length = 3
            value = UInt32(lead & 0x0F)
            if lead == 0xE0 { secondRange = 0xA0...0xBF }  // no overlong forms
            if lead == 0xED { secondRange = 0x80...0x9F }  // no UTF-16 surrogates
        case 0xF0...0xF4:
            length = 4
            value = UInt32(lead & 0x07)
            if lead == 0xF0 { secondRange = 0x90...0xBF }
            if lead == 0xF4 { secondRange = 0x80...0x8F }  // nothing past U+10FFFF
        default:
            throw invalidUTF8(lead)
        }
        guard index + length <= bytes.count else { throw invalidUTF8(lead) }
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard offset == 1 ? secondRange.contains(byte) : (0x80...0xBF).contains(byte) else {
                throw invalidUTF8(lead)
            }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard let scalar = Unicode.Scalar(value) else { throw invalidUTF8(lead) }
        return (scalar, length)
    }

    private func invalidUTF8(_ byte: UInt8) -> ConfigError {
        let hex = String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
        return ConfigError("invalid UTF-8 (byte 0x\(hex)); the file must be UTF-8 text", at: location)
    }

    /// Consumes one ASCII character that is not a line terminator.
    mutating func consumeASCII() {
        index += 1
        column += 1
    }

    /// Consumes a decoded scalar, moving to the next line after a line terminator. CR LF counts
    /// as one line break: the CR only advances the column.
    mutating func consume(_ scalar: Unicode.Scalar, length: Int) {
        index += length
        switch scalar {
        case "\n", "\u{2028}", "\u{2029}":
            line += 1
            column = 1
        case "\r" where currentByte == UInt8(ascii: "\n"):
            column += 1
        case "\r":
            line += 1
            column = 1
        default:
            column += 1
        }
    }

    func isLineTerminator(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\n" || scalar == "\r" || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    /// JSON5 WhiteSpace and LineTerminator: TAB, VT, FF, SP, NBSP, BOM, LF, CR, LS, PS and any
    /// other Unicode space separator (Zs).
    func isWhiteSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "\t", "\u{0B}", "\u{0C}", " ", "\u{A0}", "\u{FEFF}", "\n", "\r", "\u{2028}", "\u{2029}": return true
        default: return scalar.value >= 0x80 && scalar.properties.generalCategory == .spaceSeparator
        }
    }

    /// Skips white space and comments. A `/` that starts neither `//` nor `/*` is an error, as is
    /// a block comment without its `*/` (reported where the comment starts).
    mutating func skipTrivia() throws(ConfigError) {
        while let byte = currentByte {
            if byte == UInt8(ascii: "/") {
                let next = index + 1 < bytes.count ? bytes[index + 1] : nil
                if next == UInt8(ascii: "/") {
                    try skipLineComment()
                } else if next == UInt8(ascii: "*") {
                    try skipBlockComment()
                } else {
                    throw ConfigError("expected '//' or '/*' to start a comment after '/'", at: location)
                }
                continue
            }
            let (scalar, length) = try peekScalar()
            guard isWhiteSpace(scalar) else { return }
            consume(scalar, length: length)
        }
    }

    private mutating func skipLineComment() throws(ConfigError) {
        consumeASCII()
        consumeASCII()
        while index < bytes.count {
            let (scalar, length) = try peekScalar()
            if isLineTerminator(scalar) { return }
            consume(scalar, length: length)
        }
    }

    private mutating func skipBlockComment() throws(ConfigError) {
        let start = location
        consumeASCII()
        consumeASCII()
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "*"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") {
                consumeASCII()
                consumeASCII()
                return
            }
            let (scalar, length) = try peekScalar()
            consume(scalar, length: length)
        }
        throw ConfigError("unterminated block comment: no '*/' before the end of the file", at: start)
    }
}
