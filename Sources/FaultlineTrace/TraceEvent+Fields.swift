public import FaultlineCore

/// Typed access to an event's fields. Each returns nil when the key is absent or holds another type.
extension TraceEvent {
    /// The raw value of field `key`.
    public subscript(key: String) -> JSONValue? { attributes[key] }

    /// A string field (also a `.target` or `.secret` field, which are written as strings).
    public func string(_ key: String) -> String? { attributes[key]?.stringValue }

    /// An integer field.
    public func int(_ key: String) -> Int64? { attributes[key]?.intValue }

    /// A number field (integers included).
    public func double(_ key: String) -> Double? { attributes[key]?.doubleValue }

    /// A boolean field.
    public func bool(_ key: String) -> Bool? { attributes[key]?.boolValue }

    /// Whether field `key` is present and `null`.
    public func isNull(_ key: String) -> Bool { attributes[key]?.isNull ?? false }

    /// An array-of-strings field.
    public func strings(_ key: String) -> [String]? {
        guard let elements = attributes[key]?.arrayValue else { return nil }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for element in elements {
            guard let string = element.stringValue else { return nil }
            strings.append(string)
        }
        return strings
    }

    /// A nested-object field.
    public func object(_ key: String) -> [String: JSONValue]? { attributes[key]?.objectValue }

    /// A header-list field, `[[name, value], ...]`, in wire order (values as redacted).
    public func headers(_ key: String) -> [(name: String, value: String)]? {
        guard let elements = attributes[key]?.arrayValue else { return nil }
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(elements.count)
        for element in elements {
            guard let pair = element.arrayValue, pair.count == 2,
                let name = pair[0].stringValue, let value = pair[1].stringValue
            else { return nil }
            headers.append((name, value))
        }
        return headers
    }

    /// The values of every header named `name` (case-insensitively) in header-list field `key`.
    public func headerValues(_ key: String, named name: String) -> [String] {
        let wanted = name.lowercased()
        return (headers(key) ?? []).filter { $0.name.lowercased() == wanted }.map(\.value)
    }

    /// A body-summary field, `{"length": n, "fp": "fp:..."}`.
    public func body(_ key: String) -> BodySummary? {
        guard let summary = attributes[key], let length = summary["length"]?.intValue,
            let fingerprint = summary["fp"]?.stringValue
        else { return nil }
        return BodySummary(length: length, fingerprint: fingerprint)
    }
}
