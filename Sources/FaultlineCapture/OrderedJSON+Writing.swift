/// JSON text (RFC 8259) for a value: compact for a JSON Lines line, or indented for a document.
extension OrderedJSON {
    /// The value as UTF-8 JSON text; `indent` spaces per level put every member and element on a
    /// line of its own, nil writes it all on one line.
    func serialized(indent: Int? = nil) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(1024)
        append(to: &output, indent: indent, depth: 0)
        return output
    }

    private func append(to output: inout [UInt8], indent: Int?, depth: Int) {
        switch self {
        case .string(let text): Self.appendString(text, to: &output)
        case .int(let number): output.append(contentsOf: String(number).utf8)
        case .double(let number):
            // JSON has no NaN or infinities; Swift's description is the shortest text that reads
            // back as the same Double ("12.345", "1e-05").
            output.append(contentsOf: (number.isFinite ? number.description : "null").utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .null: output.append(contentsOf: "null".utf8)
        case .array(let elements):
            appendContainer(open: "[", close: "]", count: elements.count, to: &output, indent: indent, depth: depth) {
                index, output in elements[index].append(to: &output, indent: indent, depth: depth + 1)
            }
        case .object(let members):
            appendContainer(open: "{", close: "}", count: members.count, to: &output, indent: indent, depth: depth) {
                index, output in
                Self.appendString(members[index].key, to: &output)
                output.append(UInt8(ascii: ":"))
                if indent != nil { output.append(UInt8(ascii: " ")) }
                members[index].value.append(to: &output, indent: indent, depth: depth + 1)
            }
        }
    }

    private func appendContainer(
        open: Unicode.Scalar, close: Unicode.Scalar, count: Int, to output: inout [UInt8], indent: Int?, depth: Int,
        element: (Int, inout [UInt8]) -> Void
    ) {
        output.append(UInt8(ascii: open))
        for index in 0..<count {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            Self.newline(indent, depth + 1, &output)
            element(index, &output)
        }
        if count > 0 { Self.newline(indent, depth, &output) }
        output.append(UInt8(ascii: close))
    }

    private static func newline(_ indent: Int?, _ depth: Int, _ output: inout [UInt8]) {
        guard let indent else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * depth))
    }

    /// A quoted string: `"`, `\` and control characters escaped (RFC 8259 §7), and U+0085, U+2028
    /// and U+2029 too, as the trace writer does, so a line stays one line for every line reader.
    static func appendString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            var escapedLength = 0
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                output.append(UInt8(ascii: "\\"))
                output.append(byte)
            case UInt8(ascii: "\n"): output.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): output.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): output.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20: appendUnicodeEscape(UInt16(byte), to: &output)
            case 0xC2 where index + 1 < bytes.count && bytes[index + 1] == 0x85:
                appendUnicodeEscape(0x85, to: &output)
                escapedLength = 2
            case 0xE2
            where index + 2 < bytes.count && bytes[index + 1] == 0x80
                && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                appendUnicodeEscape(bytes[index + 2] == 0xA8 ? 0x2028 : 0x2029, to: &output)
                escapedLength = 3
            default: output.append(byte)
            }
            index += max(escapedLength, 1)
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func appendUnicodeEscape(_ scalar: UInt16, to output: inout [UInt8]) {
        let hex = String(scalar, radix: 16)
        output.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
    }
}
