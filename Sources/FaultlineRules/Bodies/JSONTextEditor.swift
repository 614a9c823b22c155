public import FaultlineCore

/// Sets values at JSON pointers by editing a body's JSON *text*, for a response rewrite's `jsonSet`.
///
/// Why not parse, set and serialize again: a parsed `JSONValue` keeps numbers as `Double`, so
/// `12345678901234567890` or `1e400` would come back changed, and the client would also see new
/// whitespace and escapes. Here the document is only scanned (RFC 8259) to find the byte span of
/// the value a pointer names (RFC 6901), and the new value's JSON text (``JSONValue/jsonBytes(pretty:)``)
/// is spliced in: every other byte, a UTF-8 byte order mark and the whitespace around the
/// document included, stays as it was.
///
/// The pointer semantics are ``JSONValue/set(_:at:)-(_,String)``'s, which `jsonSet` always had:
/// - a missing member of an object that exists is added after the last member (with a comma, and
///   with the whitespace that precedes the last member and separates its name from its value, so
///   an indented document stays indented), or as the only member of an empty object;
/// - in an array, an index replaces that element; `-`, or the index one past the end, appends;
/// - `""` replaces the whole document (the byte order mark and surrounding whitespace stay);
/// - `~1` in a token means `/` and `~0` means `~`.
///
/// - a missing parent is created as an object on the way (`/a/b` when there is no `a` adds
///   `"a":{"b":…}`; `/list/-/name` appends `{"name":…}`).
///
/// Duplicate member names (RFC 8259 §4 leaves their meaning open): the *last* occurrence is
/// edited, the one JavaScript's `JSON.parse` and most parsers keep, so the client sees the edit.
public enum JSONTextEditor {
    /// The body with each edit applied in order (a later edit sees the earlier ones' result), or
    /// nil when the body is not one strict JSON text in UTF-8 (RFC 8259: no comments, trailing
    /// commas or other JSON5 forms; a byte order mark is allowed, §8.1), or when a pointer is
    /// malformed, steps into a string, number, boolean or null, or names an
    /// array index that is not a number (`01`, `x`) or lies further than one past the end.
    ///
    /// With no edits, a valid body comes back unchanged. The caller passes the original body on
    /// when the result is nil.
    public static func set(_ edits: [(pointer: String, value: JSONValue)], in body: [UInt8]) -> [UInt8]? {
        guard let root = JSONTextScanner(bytes: body).documentValueStart() else { return nil }
        var text = body
        for edit in edits {
            guard let pointer = try? JSONPointer(edit.pointer),
                let splice = JSONTextScanner(bytes: text).splice(setting: edit.value, at: pointer.tokens, root: root)
            else { return nil }
            text.replaceSubrange(splice.range, with: splice.replacement)
        }
        return text
    }
}

/// Bytes to put in place of a range of the document.
private struct JSONSplice {
    var range: Range<Int>
    var replacement: [UInt8]
}

/// One member of an object or element of an array, as byte offsets into the document.
private struct JSONChild {
    /// Just after the `{`, `[` or `,` before this child: where the whitespace before it starts.
    var leadStart: Int
    /// The member name with its quotes; nil for an array element.
    var name: Range<Int>?
    var value: Range<Int>
}

/// A strict RFC 8259 scanner over a document. It never builds values: it finds where they start
/// and end. Nesting is tracked on a heap stack, not by recursion, so a deeply nested body cannot
/// exhaust the thread's stack (and needs no depth limit).
private struct JSONTextScanner {
    let bytes: [UInt8]

    // MARK: Editing

    /// Where the document's value starts, after an optional byte order mark and whitespace; nil
    /// unless the whole body is one valid JSON text.
    func documentValueStart() -> Int? {
        let start = skipWhitespace(bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0)
        guard let end = endOfValue(at: start), skipWhitespace(end) == bytes.count else { return nil }
        return start
    }

    /// The splice that sets `value` at the pointer `tokens`, walking from the root value at `root`.
    /// The document must already be known to be valid.
    func splice(setting value: JSONValue, at tokens: [String], root: Int) -> JSONSplice? {
        var current = root
        var currentEnd: Int?
        for (position, token) in tokens.enumerated() {
            guard let children = children(ofContainerAt: current) else { return nil }  // a scalar has nothing inside
            let isObject = bytes[current] == Byte.openBrace
            let child: JSONChild?
            if isObject {
                child = children.last { $0.name.map(memberName) == token }
            } else {
                let index = token == "-" ? children.count : Self.arrayIndex(token)
                guard let index, index <= children.count else { return nil }
                child = index < children.count ? children[index] : nil
            }
            if let child {
                current = child.value.lowerBound
                currentEnd = child.value.upperBound
                continue
            }
            // A missing parent is made as objects down to the value (JSONValue.set does the same).
            let nested = tokens[(position + 1)...].reversed().reduce(value) { inner, name in
                .object([JSONMember(key: name, value: inner)])
            }
            return insertion(of: nested, named: isObject ? token : nil, into: current, after: children.last)
        }
        guard let end = currentEnd ?? endOfValue(at: current) else { return nil }
        return JSONSplice(range: current..<end, replacement: value.jsonBytes())
    }

    /// Adds a member (`name` given) or an element at the end of the container opening at `open`.
    /// After an existing child, the new one copies that child's leading whitespace and, for a
    /// member, the `:` separator with its spacing, so `{\n  "a": 1\n}` becomes
    /// `{\n  "a": 1,\n  "b": 2\n}`.
    private func insertion(of value: JSONValue, named name: String?, into open: Int, after last: JSONChild?)
        -> JSONSplice
    {
        let nameText = name.map { JSONValue.string($0).jsonBytes() }
        guard let last else {
            var text = nameText.map { $0 + [Byte.colon] } ?? []
            text += value.jsonBytes()
            return JSONSplice(range: open + 1..<open + 1, replacement: text)
        }
        var text: [UInt8] = [Byte.comma]
        if let nameText, let lastName = last.name {
            text += bytes[last.leadStart..<lastName.lowerBound]
            text += nameText
            text += bytes[lastName.upperBound..<last.value.lowerBound]
        } else {
            text += bytes[last.leadStart..<last.value.lowerBound]
        }
        text += value.jsonBytes()
        return JSONSplice(range: last.value.upperBound..<last.value.upperBound, replacement: text)
    }

    /// The members or elements of the object or array starting at `start`; nil when a scalar
    /// starts there.
    func children(ofContainerAt start: Int) -> [JSONChild]? {
        let isObject = bytes[start] == Byte.openBrace
        guard isObject || bytes[start] == Byte.openBracket else { return nil }
        let close = isObject ? Byte.closeBrace : Byte.closeBracket
        var children: [JSONChild] = []
        var index = start + 1
        if byte(at: skipWhitespace(index)) == close { return [] }
        while true {
            let leadStart = index
            var name: Range<Int>?
            var valueStart = skipWhitespace(index)
            if isObject {
                guard let nameEnd = endOfString(at: valueStart), let afterColon = endOfSeparator(at: nameEnd) else {
                    return nil
                }
                name = valueStart..<nameEnd
                valueStart = skipWhitespace(afterColon)
            }
            guard let valueEnd = endOfValue(at: valueStart) else { return nil }
            children.append(JSONChild(leadStart: leadStart, name: name, value: valueStart..<valueEnd))
            index = skipWhitespace(valueEnd)
            switch byte(at: index) {
            case Byte.comma: index += 1
            case close: return children
            default: return nil
            }
        }
    }

    /// A member name's text with its escapes decoded. Compared as a Swift `String`, as
    /// `JSONValue.set` and `body.json` matches (`JSONValue.parse`) compare names, so a rule edits the
    /// member its condition matched. A lone surrogate escape reads as U+FFFD, as in `JSONValue.parse`.
    private func memberName(_ range: Range<Int>) -> String {
        let content = bytes[range.lowerBound + 1..<range.upperBound - 1]
        guard content.contains(Byte.backslash) else { return String(decoding: content, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        var index = content.startIndex
        while index < content.endIndex {
            guard content[index] == Byte.backslash else {
                let end = content[index...].firstIndex(of: Byte.backslash) ?? content.endIndex
                scalars += String(decoding: content[index..<end], as: UTF8.self).unicodeScalars
                index = end
                continue
            }
            let escape = content[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                let first = hex4(at: index)
                index += 4
                if (0xD800..<0xDC00).contains(first), index + 6 <= content.endIndex, content[index] == Byte.backslash,
                    content[index + 1] == UInt8(ascii: "u"), case let second = hex4(at: index + 2),
                    (0xDC00..<0xE000).contains(second)
                {
                    index += 6
                    scalars.append(Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)) ?? "\u{FFFD}")
                } else {
                    scalars.append(Unicode.Scalar(first) ?? "\u{FFFD}")
                }
            default: scalars.append(Unicode.Scalar(escape))  // `"`, `\` and `/` stand for themselves
            }
        }
        return String(scalars)
    }

    /// The four hex digits at `index`, already validated by `endOfString`.
    private func hex4(at index: Int) -> UInt32 {
        bytes[index..<index + 4].reduce(0) { $0 << 4 | UInt32(HexDigit.value($1) ?? 0) }
    }

    /// `0` or digits without a leading zero (RFC 6901 §4).
    private static func arrayIndex(_ token: String) -> Int? {
        let digits = token.utf8
        guard let first = digits.first, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        guard first != 0x30 || digits.count == 1 else { return nil }
        return Int(token)
    }

    // MARK: Scanning (RFC 8259)

    /// Where the value starting at `start` ends, or nil when it is not valid JSON. Containers are
    /// followed with a stack of the brackets still open.
    func endOfValue(at start: Int) -> Int? {
        var open: [UInt8] = []
        var index = start
        scanning: while true {
            // A value starts here.
            index = skipWhitespace(index)
            guard let first = byte(at: index) else { return nil }
            switch first {
            case Byte.openBrace:
                index = skipWhitespace(index + 1)
                if byte(at: index) == Byte.closeBrace {
                    index += 1
                } else {
                    guard let name = endOfString(at: index), let afterColon = endOfSeparator(at: name) else {
                        return nil
                    }
                    open.append(Byte.closeBrace)
                    index = afterColon
                    continue scanning
                }
            case Byte.openBracket:
                index = skipWhitespace(index + 1)
                if byte(at: index) == Byte.closeBracket {
                    index += 1
                } else {
                    open.append(Byte.closeBracket)
                    continue scanning
                }
            case Byte.quote:
                guard let end = endOfString(at: index) else { return nil }
                index = end
            case UInt8(ascii: "t"):
                guard let end = endOfLiteral("true", at: index) else { return nil }
                index = end
            case UInt8(ascii: "f"):
                guard let end = endOfLiteral("false", at: index) else { return nil }
                index = end
            case UInt8(ascii: "n"):
                guard let end = endOfLiteral("null", at: index) else { return nil }
                index = end
            default:
                guard let end = endOfNumber(at: index) else { return nil }
                index = end
            }
            // A value ended here: close what it completes, or go on to the next member or element.
            while let close = open.last {
                index = skipWhitespace(index)
                switch byte(at: index) {
                case Byte.comma:
                    index = skipWhitespace(index + 1)
                    if close == Byte.closeBrace {
                        guard let name = endOfString(at: index), let afterColon = endOfSeparator(at: name) else {
                            return nil
                        }
                        index = afterColon
                    }
                    continue scanning
                case close:
                    index += 1
                    open.removeLast()
                default:
                    return nil
                }
            }
            return index
        }
    }

    /// After a member name ending at `index`: optional whitespace, `:`; returns the offset after the colon.
    private func endOfSeparator(at index: Int) -> Int? {
        let colon = skipWhitespace(index)
        return byte(at: colon) == Byte.colon ? colon + 1 : nil
    }

    /// A string starting at its opening quote (RFC 8259 §7): control characters must be escaped,
    /// escapes are the eight of the grammar, and the text must be well-formed UTF-8 (§8.1).
    private func endOfString(at start: Int) -> Int? {
        guard byte(at: start) == Byte.quote else { return nil }
        var index = start + 1
        while let current = byte(at: index) {
            switch current {
            case Byte.quote:
                return index + 1
            case Byte.backslash:
                switch byte(at: index + 1) {
                case Byte.quote, Byte.backslash, UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"),
                    UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 2
                case UInt8(ascii: "u"):
                    guard index + 6 <= bytes.count,
                        bytes[index + 2..<index + 6].allSatisfy({ HexDigit.value($0) != nil })
                    else { return nil }
                    index += 6
                default:
                    return nil
                }
            case 0x00..<0x20:
                return nil
            case 0x80...:
                guard let end = endOfUTF8Sequence(at: index) else { return nil }
                index = end
            default:
                index += 1
            }
        }
        return nil
    }

    /// A multi-byte UTF-8 sequence starting at `start`; nil for a stray continuation byte, an
    /// overlong form, a surrogate or a code point past U+10FFFF (RFC 3629 §4).
    private func endOfUTF8Sequence(at start: Int) -> Int? {
        let lead = bytes[start]
        let count: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: count = 2
        case 0xE0: count = 3; secondRange = 0xA0...0xBF
        case 0xED: count = 3; secondRange = 0x80...0x9F
        case 0xE1...0xEF: count = 3
        case 0xF0: count = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: count = 4
        case 0xF4: count = 4; secondRange = 0x80...0x8F
        default: return nil
        }
        guard start + count <= bytes.count, secondRange.contains(bytes[start + 1]) else { return nil }
        guard bytes[start + 2..<start + count].allSatisfy({ (0x80...0xBF).contains($0) }) else { return nil }
        return start + count
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` (RFC 8259 §6). Any spelling the
    /// grammar allows is kept as written, however large.
    private func endOfNumber(at start: Int) -> Int? {
        var index = start
        if byte(at: index) == UInt8(ascii: "-") { index += 1 }
        if byte(at: index) == UInt8(ascii: "0") {
            index += 1
        } else {
            guard let end = endOfDigits(at: index) else { return nil }
            index = end
        }
        if byte(at: index) == UInt8(ascii: ".") {
            guard let end = endOfDigits(at: index + 1) else { return nil }
            index = end
        }
        if byte(at: index) == UInt8(ascii: "e") || byte(at: index) == UInt8(ascii: "E") {
            index += 1
            if byte(at: index) == UInt8(ascii: "+") || byte(at: index) == UInt8(ascii: "-") { index += 1 }
            guard let end = endOfDigits(at: index) else { return nil }
            index = end
        }
        return index
    }

    /// One or more decimal digits.
    private func endOfDigits(at start: Int) -> Int? {
        var index = start
        while let digit = byte(at: index), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) { index += 1 }
        return index > start ? index : nil
    }

    private func endOfLiteral(_ word: String, at start: Int) -> Int? {
        let end = start + word.utf8.count
        guard end <= bytes.count, bytes[start..<end].elementsEqual(word.utf8) else { return nil }
        return end
    }

    /// RFC 8259 §2: space, tab, line feed, carriage return.
    private func skipWhitespace(_ start: Int) -> Int {
        var index = start
        while let current = byte(at: index), current == 0x20 || current == 0x09 || current == 0x0A || current == 0x0D {
            index += 1
        }
        return index
    }

    private func byte(at index: Int) -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }
}

/// The structural bytes of RFC 8259 §2.
private enum Byte {
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let colon = UInt8(ascii: ":")
    static let comma = UInt8(ascii: ",")
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
}
