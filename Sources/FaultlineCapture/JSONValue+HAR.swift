import FaultlineCore

/// Building and reading the documents this module writes (HAR, capture lines): objects keep the
/// order they are built in, so the files read in a sensible order.
extension JSONValue {
    /// An object of `members` in order, leaving out those whose value is nil (optional fields).
    static func fields(_ members: [(String, JSONValue?)]) -> JSONValue {
        .object(members.compactMap { key, value in value.map { JSONMember(key: key, value: $0) } })
    }

    /// `[{"name": …, "value": …}, …]`: HAR's form of headers, query parameters and cookies.
    static func nameValueList(_ pairs: [(name: String, value: String)]) -> JSONValue {
        .array(pairs.map { .fields([("name", .string($0.name)), ("value", .string($0.value))]) })
    }

    /// The integer, also from a number with no fraction (`2.0`, which some HAR writers produce).
    var wholeNumber: Int64? {
        if let integer = intValue { return integer }
        guard let value = doubleValue, value.rounded() == value, let exact = Int64(exactly: value) else { return nil }
        return exact
    }
}
