public import FaultlineCore

/// A parsed JSON5 value together with where it starts in its file: what ``JSON5/parse(_:file:maxDepth:)``
/// returns and what the typed readers (``ConfigObjectReader``) walk to build a model while
/// pointing every error at the offending key or value.
public struct ConfigNode: Sendable {
    /// One member of an object node: its key, where the key starts, and its value.
    public typealias Member = (key: String, keyLocation: SourceLocation, value: ConfigNode)

    /// The value itself; containers hold nodes so positions survive all the way down.
    public enum Kind: Sendable {
        case null
        case bool(Bool)
        /// The number's text, or the canonical text of a JSON5-only form (hex, `+1`, `.5`,
        /// `Infinity`), so the value writes back as strict JSON.
        case number(JSONNumber)
        case string(String)
        case array([ConfigNode])
        /// Members in file order; keys are unique (the parser refuses duplicates).
        case object([Member])
    }

    /// The value.
    public let kind: Kind
    /// Where the value starts: its first character (the quote of a string, the `{` of an object).
    public let location: SourceLocation

    /// A node; the parser makes these, tests may too.
    public init(_ kind: Kind, at location: SourceLocation) {
        self.kind = kind
        self.location = location
    }

    /// The same value without positions, for run-time use (JSON bodies, pointer values).
    public var plainValue: JSONValue {
        switch kind {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .number(let value): return .number(value)
        case .string(let value): return .string(value)
        case .array(let elements): return .array(elements.map(\.plainValue))
        case .object(let members): return .object(members.map { JSONMember(key: $0.key, value: $0.value.plainValue) })
        }
    }

    /// The JSON type name used in messages: `null`, `boolean`, `number`, `string`, `array`, `object`.
    public var typeName: String {
        switch kind {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// How messages show a value that was not what they expected: scalars as written in JSON
    /// (`"3"`, `-1`, `true`, `null`; long strings shortened), containers by type (`an object`).
    public var foundDescription: String {
        switch kind {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        // The canonical text, not the file's: messages say `1.5` for `1.50` and `15` for `0xF`.
        case .number(let value): return JSONValue.number(value.double).jsonText()
        case .string(let value):
            let limit = 40
            let scalars = Array(value.unicodeScalars)
            guard scalars.count > limit else { return JSONValue.string(value).jsonText() }
            var short = String.UnicodeScalarView()
            short.append(contentsOf: scalars[..<limit])
            return JSONValue.string(String(short) + "…").jsonText()
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The string, when the node is one.
    public var stringValue: String? {
        if case .string(let value) = kind { return value }
        return nil
    }

    /// The members, when the node is an object.
    public var members: [Member]? {
        if case .object(let members) = kind { return members }
        return nil
    }

    /// The elements, when the node is an array.
    public var elements: [ConfigNode]? {
        if case .array(let elements) = kind { return elements }
        return nil
    }
}
