import FaultlineCore

extension JSONValue {
    /// The text a credential at this place carries: a string's value or a number's source text
    /// (a numeric credential fingerprints as sent); nil for anything else.
    var credentialText: String? {
        switch self {
        case .string(let text): return text
        case .number(let number): return number.text
        case .null, .bool, .array, .object: return nil
        }
    }
}
