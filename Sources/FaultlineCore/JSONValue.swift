/// A JSON value: the package's one model for JSON and JSON5 documents (rule files, trace lines,
/// message bodies, HAR files).
///
/// Numbers keep their source text (``JSONNumber``), so `1.0`, `1e3` and integers too long for a
/// Double survive a round trip; objects keep their members in order, so a document written back
/// reads as it was. A file read with JSON5 keeps its positions too: FaultlineConfig's `ConfigNode`
/// pairs this value with a tree of where each part is written, so the value a loader hands on is
/// this one and run-time JSON (bodies, trace lines) carries no positions it will never report.
///
/// Equality is JSON's: numbers by value (``JSONNumber``), objects with the same members in any
/// order (RFC 8259 §4 calls an object unordered; keys are unique once parsed).
public indirect enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    /// Members in document order.
    case object([JSONMember])

    /// A number from a Double (``JSONNumber/init(_:)-(Double)``).
    public static func number(_ value: Double) -> JSONValue { .number(JSONNumber(value)) }

    /// A number from an integer, exactly.
    public static func int(_ value: Int64) -> JSONValue { .number(JSONNumber(value)) }

    /// An object from key-value pairs in order (`.object(["a": .null])`).
    public static func object(_ members: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(members.map { JSONMember(key: $0.key, value: $0.value) })
    }

    public static func == (left: JSONValue, right: JSONValue) -> Bool {
        switch (left, right) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count
                && a.allSatisfy { member in b.contains { $0.key == member.key && $0.value == member.value } }
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .number(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .array(let elements): hasher.combine(elements)
        case .object(let members):
            // Order-independent, as equality is: the members' own hashes summed.
            var sum = 0
            for member in members {
                var inner = Hasher()
                inner.combine(member.key)
                inner.combine(member.value)
                sum &+= inner.finalize()
            }
            hasher.combine(members.count)
            hasher.combine(sum)
        }
    }

    /// The value of member `key` of an object (the first, should one repeat it); nil for
    /// anything else.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, if this is a number written as an integer that fits in Int64.
    public var intValue: Int64? {
        if case .number(let value) = self { return value.int64 }
        return nil
    }

    /// The number as a Double, if this is any number.
    public var doubleValue: Double? {
        if case .number(let value) = self { return value.double }
        return nil
    }

    /// The boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members in order, if this is an object.
    public var members: [JSONMember]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The members by key, if this is an object (the last, should a key repeat), for readers that
    /// look members up by name.
    public var objectValue: [String: JSONValue]? {
        guard case .object(let members) = self else { return nil }
        var dictionary: [String: JSONValue] = [:]
        dictionary.reserveCapacity(members.count)
        for member in members { dictionary[member.key] = member.value }
        return dictionary
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The JSON type's name for messages: `a string`, `an integer` (a number written as one that
    /// fits in Int64), `a number`, `a boolean`, `null`, `an array`, `an object`.
    public var typeName: String {
        switch self {
        case .string: "a string"
        case .number(let value): value.int64 == nil ? "a number" : "an integer"
        case .bool: "a boolean"
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// One `"key": value` of a JSON object, in order.
public struct JSONMember: Sendable, Hashable {
    public var key: String
    public var value: JSONValue

    public init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }
}
