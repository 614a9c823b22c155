/// A JSON value whose objects keep their members in the order they were built, so the files this
/// module writes (HAR, capture lines) read in a sensible order; also what a HAR file is read into.
///
/// FaultlineTrace's `JSONValue` keeps objects as dictionaries, which is right for reading trace
/// lines and wrong for writing documents people read.
enum OrderedJSON: Sendable, Equatable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case null
    case array([OrderedJSON])
    case object([Member])

    /// One `"key": value` of an object.
    struct Member: Sendable, Equatable {
        let key: String
        let value: OrderedJSON
    }

    /// JSON's equality: objects with the same members in any order are equal (RFC 8259 §4 calls
    /// an object unordered), as a document read back has its members in no particular order.
    static func == (left: OrderedJSON, right: OrderedJSON) -> Bool {
        switch (left, right) {
        case (.string(let a), .string(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null): true
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count
                && a.allSatisfy { member in b.contains { $0.key == member.key && $0.value == member.value } }
        default: false
        }
    }

    /// An object of `members` in order, leaving out those whose value is nil (optional fields).
    static func fields(_ members: [(String, OrderedJSON?)]) -> OrderedJSON {
        .object(members.compactMap { key, value in value.map { Member(key: key, value: $0) } })
    }

    /// `[{"name": …, "value": …}, …]`: HAR's form of headers, query parameters and cookies.
    static func nameValueList(_ pairs: [(name: String, value: String)]) -> OrderedJSON {
        .array(pairs.map { .fields([("name", .string($0.name)), ("value", .string($0.value))]) })
    }

    /// The value of member `key` of an object (the first, should a file repeat it); nil for
    /// anything else.
    subscript(key: String) -> OrderedJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number, integers included.
    var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The integer, also from a number with no fraction (`2.0`, which some writers produce).
    var intValue: Int64? {
        switch self {
        case .int(let value): return value
        case .double(let value):
            guard value.rounded() == value, let exact = Int64(exactly: value) else { return nil }
            return exact
        default: return nil
        }
    }

    var arrayValue: [OrderedJSON]? {
        if case .array(let value) = self { return value }
        return nil
    }

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The JSON type's name, for error messages.
    var typeName: String {
        switch self {
        case .string: "a string"
        case .int, .double: "a number"
        case .bool: "a boolean"
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
