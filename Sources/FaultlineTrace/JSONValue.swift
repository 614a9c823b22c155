/// A JSON value as read from a trace line.
///
/// Integers that fit in Int64 read as `.int`, every other number as `.number`, so counts and
/// IDs compare exactly. Objects are dictionaries; trace keys are unique within an object.
/// (Not `indirect`: arrays and dictionaries already hold their elements out of line, and boxing
/// every scalar would cost the reader an allocation per value.)
public enum JSONValue: Sendable, Hashable {
    /// A string.
    case string(String)
    /// A number with a fraction or an exponent, or an integer too large for Int64.
    case number(Double)
    /// An integer that fits in Int64.
    case int(Int64)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
    /// An array.
    case array([JSONValue])
    /// An object; keys are unique.
    case object([String: JSONValue])

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, if this is an integer.
    public var intValue: Int64? {
        if case .int(let value) = self { return value }
        return nil
    }

    /// The number as a Double, if this is any number.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .number(let value): value
        default: nil
        }
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

    /// The members, if this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The JSON type's name, for error messages.
    var typeName: String {
        switch self {
        case .string: "a string"
        case .number: "a number"
        case .int: "an integer"
        case .bool: "a boolean"
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
