extension ConfigValue {
    /// Serializes the value as strict JSON (RFC 8259), for synthetic response bodies and traces.
    ///
    /// Integral numbers up to 2^53 print without a fraction (`401`, not `401.0`); other numbers use
    /// the shortest form that reads back to the same double. JSON has no Infinity or NaN: they
    /// print as `null`, as JavaScript's `JSON.stringify` does. With `pretty`, members and elements
    /// go on their own lines indented by two spaces.
    public func jsonText(pretty: Bool = false) -> String {
        var output = ""
        write(to: &output, pretty: pretty, indent: 0)
        return output
    }

    private func write(to output: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let value): output += Self.numberText(value)
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let elements):
            guard !elements.isEmpty else {
                output += "[]"
                return
            }
            output += "["
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output += "," }
                Self.newline(&output, pretty: pretty, indent: indent + 1)
                element.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            Self.newline(&output, pretty: pretty, indent: indent)
            output += "]"
        case .object(let members):
            guard !members.isEmpty else {
                output += "{}"
                return
            }
            output += "{"
            for (offset, member) in members.enumerated() {
                if offset > 0 { output += "," }
                Self.newline(&output, pretty: pretty, indent: indent + 1)
                Self.writeString(member.key, to: &output)
                output += pretty ? ": " : ":"
                member.value.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            Self.newline(&output, pretty: pretty, indent: indent)
            output += "}"
        }
    }

    private static func newline(_ output: inout String, pretty: Bool, indent: Int) {
        guard pretty else { return }
        output += "\n"
        output += String(repeating: "  ", count: indent)
    }

    private static func numberText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) <= 9_007_199_254_740_992 {
            return value == 0 ? "0" : String(Int64(value))
        }
        // Swift prints the shortest round-tripping form; its exponent form ("1e-07", "1e+20") is valid JSON.
        return "\(value)"
    }

    /// RFC 8259 §7: quote, backslash and control characters must be escaped.
    private static func writeString(_ value: String, to output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case "\u{0}"..."\u{1F}":
                output += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
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
