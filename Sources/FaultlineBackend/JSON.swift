import FaultlineConfig

/// Small helpers for building and reading JSON bodies with `ConfigValue`.
enum JSON {
    /// An object with these members in this order.
    static func object(_ members: KeyValuePairs<String, ConfigValue>) -> ConfigValue {
        .object(members.map { ConfigMember(key: $0.key, value: $0.value) })
    }

    /// An integer as a JSON number.
    static func number(_ value: Int) -> ConfigValue {
        .number(Double(value))
    }

    /// Parses a request body. JSON5 forms (comments, trailing commas) are accepted, since the
    /// shared reader allows them; anything that is not one well-formed document is nil.
    static func parse(_ bytes: [UInt8]) -> ConfigValue? {
        ConfigValue.parseJSON(bytes)
    }

    /// The member `key` of an object, or nil (also when `value` is not an object).
    static func member(_ key: String, of value: ConfigValue) -> ConfigValue? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.value
    }
}
