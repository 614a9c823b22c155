public import FaultlineCore

/// A value read from a JSON5 file, with where it and everything inside it is written: what
/// ``JSON5/parse(_:file:maxDepth:)`` returns and what the typed readers (``ConfigObjectReader``)
/// walk to build a model while pointing every error at the offending key or value.
///
/// The value is the package's one JSON model, ``JSONValue`` (number text and member order kept);
/// the positions ride beside it in a tree of the same shape (``SourcePositions``), so a loader
/// hands ``value`` on as it is and run-time JSON (bodies, trace lines) never carries positions.
public struct ConfigNode: Sendable {
    /// One member of an object node: its key, where the key starts, and its value.
    public typealias Member = (key: String, keyLocation: SourceLocation, value: ConfigNode)

    /// What a decoder switches on: the value, with an array's elements and an object's members
    /// as nodes, so their positions come along.
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

    /// The value, without positions.
    public let value: JSONValue
    /// Where the value and its contents are written.
    let positions: SourcePositions

    /// A node; the parser makes these.
    init(_ value: JSONValue, positions: SourcePositions) {
        self.value = value
        self.positions = positions
    }

    /// Where the value starts: its first character (the quote of a string, the `{` of an object).
    public var location: SourceLocation { positions.location }

    /// The value as a decoder switches on it; see ``Kind``.
    public var kind: Kind {
        switch value {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .number(let value): return .number(value)
        case .string(let value): return .string(value)
        case .array: return .array(elements ?? [])
        case .object: return .object(members ?? [])
        }
    }

    /// The JSON type name used in messages: `null`, `boolean`, `number`, `string`, `array`, `object`.
    public var typeName: String {
        switch value {
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
        switch value {
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
    public var stringValue: String? { value.stringValue }

    /// The members, when the node is an object.
    public var members: [Member]? {
        guard case .object(let members) = value else { return nil }
        return members.indices.map { index in
            (
                key: members[index].key, keyLocation: positions.keyLocations[index],
                value: ConfigNode(members[index].value, positions: positions.children[index])
            )
        }
    }

    /// The elements, when the node is an array.
    public var elements: [ConfigNode]? {
        guard case .array(let elements) = value else { return nil }
        return elements.indices.map { ConfigNode(elements[$0], positions: positions.children[$0]) }
    }
}

/// Where a value is written and, inside an array or object, where each element, key and member
/// value is: a tree of the same shape as the value it describes.
struct SourcePositions: Sendable {
    /// The value's first character.
    var location: SourceLocation
    /// An object's keys, in member order; empty otherwise.
    var keyLocations: [SourceLocation] = []
    /// An array's elements or an object's member values, in order; empty for a scalar.
    var children: [SourcePositions] = []
}
