extension ConfigValue {
    /// Serializes the value as strict JSON (RFC 8259), for synthetic response bodies and traces.
    ///
    /// Integral numbers up to 2^53 print without a fraction (`401`, not `401.0`); other numbers use
    /// the shortest form that reads back to the same double. JSON has no Infinity or NaN: they
    /// print as `null`, as JavaScript's `JSON.stringify` does. With `pretty`, members and elements
    /// go on their own lines indented by two spaces.
    public func jsonText(pretty: Bool = false) -> String {
        var output: [UInt8] = []
        write(to: &output, pretty: pretty, indent: 0)
        return String(decoding: output, as: UTF8.self)
    }

    /// The same text as UTF-8 bytes, ready to be a body.
    public func jsonBytes(pretty: Bool = false) -> [UInt8] {
        var output: [UInt8] = []
        write(to: &output, pretty: pretty, indent: 0)
        return output
    }

    private func write(to output: inout [UInt8], pretty: Bool, indent: Int) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value): output.append(contentsOf: Self.numberText(value).utf8)
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let elements):
            guard !elements.isEmpty else {
                output.append(contentsOf: "[]".utf8)
                return
            }
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                Self.newline(&output, pretty: pretty, indent: indent + 1)
                element.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            Self.newline(&output, pretty: pretty, indent: indent)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else {
                output.append(contentsOf: "{}".utf8)
                return
            }
            output.append(UInt8(ascii: "{"))
            for (offset, member) in members.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                Self.newline(&output, pretty: pretty, indent: indent + 1)
                Self.writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                if pretty { output.append(UInt8(ascii: " ")) }
                member.value.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            Self.newline(&output, pretty: pretty, indent: indent)
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ output: inout [UInt8], pretty: Bool, indent: Int) {
        guard pretty else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
    }

    private static func numberText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) <= 9_007_199_254_740_992 {
            return value == 0 ? "0" : String(Int64(value))
        }
        // Swift prints the shortest round-tripping form; its exponent form ("1e-07", "1e+20") is valid JSON.
        return "\(value)"
    }

    /// RFC 8259 §7: quote, backslash and control characters must be escaped; everything else,
    /// non-ASCII included, is copied as UTF-8.
    private static func writeString(_ value: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): output.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): output.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): output.append(contentsOf: #"\t"#.utf8)
            case 0x08: output.append(contentsOf: #"\b"#.utf8)
            case 0x0C: output.append(contentsOf: #"\f"#.utf8)
            case 0..<0x20:
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(Self.hexDigits[Int(byte >> 4)])
                output.append(Self.hexDigits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}

extension ConfigValue {
    /// Parses a JSON (or JSON5) body leniently: comments, trailing commas and the other JSON5
    /// forms are accepted. Returns nil when the bytes are not a single valid document (or not
    /// UTF-8); call `JSON5.parse(_:file:)` to learn why.
    public static func parseJSON(_ bytes: [UInt8]) -> ConfigValue? {
        do {
            return try JSON5.parse(bytes, file: "<body>").plainValue
        } catch {
            return nil
        }
    }
}
