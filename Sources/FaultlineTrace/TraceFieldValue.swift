/// The value of one field of a trace event, with what it means for redaction.
///
/// Secrets are typed, so that the writer, not each caller, redacts them: `.headers`, `.target`,
/// `.secret` and `.body` are written redacted according to the recorder's `RedactionPolicy`.
public enum TraceFieldValue: Sendable, Equatable {
    /// A plain string, written as is.
    case string(String)
    /// An integer.
    case int(Int64)
    /// A number; NaN and infinities are written as `null` (JSON has neither).
    case double(Double)
    /// A boolean.
    case bool(Bool)
    /// JSON `null`.
    case null
    /// An array of plain strings.
    case strings([String])
    /// A nested object, its fields written in the given order (and redacted the same way).
    case object([TraceField])
    /// Header fields in wire order, written as `[[name, value], ...]`; values of secret headers
    /// are fingerprinted as the policy says (Authorization keeps its scheme, cookies their names).
    case headers([(name: String, value: String)])
    /// A request target or URL; secret query parameters and URL userinfo passwords are fingerprinted.
    case target(String)
    /// A secret (token, password, cookie value): always written as a fingerprint `"fp:<16 hex>"`.
    case secret(String)
    /// A body summary, written as `{"length": n, "fp": "fp:..."}`.
    case body(BodySummary)
    /// A captured body, written as `{"length": n, "encoding": "utf8"|"base64", "data": "...",
    /// "truncated": true}` (`truncated` only when it is), its secrets replaced as the capture says.
    case content(CapturedBody)
}

/// One `key: value` field of a trace event.
///
/// The keys `seq`, `wall`, `mono_ns`, `event`, `conn` and `flow` belong to the line itself and
/// must not be used as top-level field keys.
public struct TraceField: Sendable, Equatable {
    /// The JSON key.
    public let key: String
    /// The value, redacted on writing according to its case.
    public let value: TraceFieldValue

    /// Makes a field from a key and a value.
    public init(_ key: String, _ value: TraceFieldValue) {
        self.key = key
        self.value = value
    }

    /// A plain string field.
    public static func string(_ key: String, _ value: String) -> Self { Self(key, .string(value)) }
    /// An integer field (values beyond Int64 are clamped).
    public static func int(_ key: String, _ value: some BinaryInteger) -> Self {
        Self(key, .int(Int64(clamping: value)))
    }
    /// A number field.
    public static func double(_ key: String, _ value: Double) -> Self { Self(key, .double(value)) }
    /// A boolean field.
    public static func bool(_ key: String, _ value: Bool) -> Self { Self(key, .bool(value)) }
    /// A `null` field.
    public static func null(_ key: String) -> Self { Self(key, .null) }
    /// An array-of-strings field.
    public static func strings(_ key: String, _ value: [String]) -> Self { Self(key, .strings(value)) }
    /// A nested-object field.
    public static func object(_ key: String, _ value: [TraceField]) -> Self { Self(key, .object(value)) }
    /// A header-list field, redacted per the policy.
    public static func headers(_ key: String, _ value: [(name: String, value: String)]) -> Self {
        Self(key, .headers(value))
    }
    /// A request-target or URL field, redacted per the policy.
    public static func target(_ key: String, _ value: String) -> Self { Self(key, .target(value)) }
    /// A secret field, written as its fingerprint only.
    public static func secret(_ key: String, _ value: String) -> Self { Self(key, .secret(value)) }
    /// A body-summary field.
    public static func body(_ key: String, _ value: BodySummary) -> Self { Self(key, .body(value)) }
    /// A captured-body field.
    public static func content(_ key: String, _ value: CapturedBody) -> Self { Self(key, .content(value)) }
}

extension TraceFieldValue {
    /// Equal when they would be written the same way before redaction (header lists compare
    /// pair by pair: tuples have no `==` of their own).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)), (.target(let a), .target(let b)), (.secret(let a), .secret(let b)):
            return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null): return true
        case (.strings(let a), .strings(let b)): return a == b
        case (.object(let a), .object(let b)): return a == b
        case (.headers(let a), .headers(let b)): return a.elementsEqual(b) { $0 == $1 }
        case (.body(let a), .body(let b)): return a == b
        case (.content(let a), .content(let b)): return a == b
        default: return false
        }
    }
}
