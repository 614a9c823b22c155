import FaultlineConfig
import FaultlineCore

/// Small helpers for building and reading JSON bodies with `JSONValue`.
enum JSON {
    /// An object with these members in this order.
    static func object(_ members: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(members.map { JSONMember(key: $0.key, value: $0.value) })
    }

    /// An integer as a JSON number.
    static func number(_ value: Int) -> JSONValue {
        .number(Double(value))
    }

    /// Parses a request body. JSON5 forms (comments, trailing commas) are accepted, since the
    /// shared reader allows them; anything that is not one well-formed document is nil.
    static func parse(_ bytes: [UInt8]) -> JSONValue? {
        JSONValue.parseJSON(bytes)
    }

    /// The member `key` of an object, or nil (also when `value` is not an object).
    static func member(_ key: String, of value: JSONValue) -> JSONValue? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.value
    }
}
