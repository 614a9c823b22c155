/// JSON text (RFC 8259) for a value: compact, for a body or a JSON Lines line, or indented, for a
/// document people read.
extension JSONValue {
    /// The value as JSON text. Numbers print as their text; JSON has no Infinity or NaN, so those
    /// print as `null`, as JavaScript's `JSON.stringify` does. With `pretty`, members and elements
    /// go on their own lines indented by two spaces.
    public func jsonText(pretty: Bool = false) -> String {
        String(decoding: jsonBytes(indent: pretty ? 2 : nil), as: UTF8.self)
    }

    /// The same text as UTF-8 bytes, ready to be a body.
    public func jsonBytes(pretty: Bool = false) -> [UInt8] {
        jsonBytes(indent: pretty ? 2 : nil)
    }

    /// The value as UTF-8 JSON text; `indent` spaces per level put every member and element on a
    /// line of its own, nil writes it all on one line.
    public func jsonBytes(indent: Int?) -> [UInt8] {
        var output: [UInt8] = []
        write(to: &output, indent: indent, depth: 0)
        return output
    }

    private func write(to output: inout [UInt8], indent: Int?, depth: Int) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value): output.append(contentsOf: (value.isFinite ? value.text : "null").utf8)
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                Self.newline(&output, indent: indent, depth: depth + 1)
                element.write(to: &output, indent: indent, depth: depth + 1)
            }
            if !elements.isEmpty { Self.newline(&output, indent: indent, depth: depth) }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (offset, member) in members.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                Self.newline(&output, indent: indent, depth: depth + 1)
                Self.writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                if indent != nil { output.append(UInt8(ascii: " ")) }
                member.value.write(to: &output, indent: indent, depth: depth + 1)
            }
            if !members.isEmpty { Self.newline(&output, indent: indent, depth: depth) }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ output: inout [UInt8], indent: Int?, depth: Int) {
        guard let indent else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * depth))
    }

    /// RFC 8259 §7: quote, backslash and control characters escaped; U+0085, U+2028 and U+2029
    /// too, as the trace writer does, so a line stays one line for every line reader. Everything
    /// else, non-ASCII included, is copied as UTF-8.
    package static func writeString(_ value: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var bytes = value.utf8.makeIterator()
        var pending = bytes.next()
        while let byte = pending {
            pending = bytes.next()
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): output.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): output.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): output.append(contentsOf: #"\t"#.utf8)
            case 0x08: output.append(contentsOf: #"\b"#.utf8)
            case 0x0C: output.append(contentsOf: #"\f"#.utf8)
            case 0..<0x20: appendUnicodeEscape(UInt16(byte), to: &output)
            case 0xC2 where pending == 0x85:
                pending = bytes.next()
                appendUnicodeEscape(0x85, to: &output)
            case 0xE2 where pending == 0x80:
                // U+2028 and U+2029 are E2 80 A8 and E2 80 A9; other E2 80 xx pass through.
                let third = bytes.next()
                if third == 0xA8 || third == 0xA9 {
                    appendUnicodeEscape(third == 0xA8 ? 0x2028 : 0x2029, to: &output)
                    pending = bytes.next()
                } else {
                    output.append(byte)
                    output.append(0x80)
                    pending = third
                }
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func appendUnicodeEscape(_ scalar: UInt16, to output: inout [UInt8]) {
        output.append(contentsOf: #"\u"#.utf8)
        for shift in stride(from: 12, through: 0, by: -4) {
            output.append(hexDigits[Int(scalar >> UInt16(shift) & 0x0F)])
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
