import FaultlineCore

/// A value of a HAR document with the path that leads to it (`entries[3].request.url`), so every
/// error the importer raises says where: `FILE: entries[3].request.url: not an absolute http(s) URL`.
struct HARField {
    let value: JSONValue
    let path: String
    let source: String

    /// An error about this field.
    func problem(_ message: String) -> CaptureLoadError {
        CaptureLoadError(path.isEmpty ? "\(source): \(message)" : "\(source): \(path): \(message)")
    }

    /// The path of member `key`.
    private func childPath(_ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    /// Member `key`, or nil when it is absent or `null` (writers put `null` for "not known").
    func member(_ key: String) -> HARField? {
        guard let child = value[key], !child.isNull else { return nil }
        return HARField(value: child, path: childPath(key), source: source)
    }

    /// Member `key`, which must be there.
    func required(_ key: String) throws(CaptureLoadError) -> HARField {
        guard case .object = value else { throw problem("expected an object, found \(value.typeName)") }
        guard let child = member(key) else { throw CaptureLoadError("\(source): \(childPath(key)): missing") }
        return child
    }

    func string() throws(CaptureLoadError) -> String {
        guard let text = value.stringValue else { throw problem("expected a string, found \(value.typeName)") }
        return text
    }

    func integer() throws(CaptureLoadError) -> Int64 {
        guard let number = value.wholeNumber else { throw problem("expected an integer, found \(value.typeName)") }
        return number
    }

    func number() throws(CaptureLoadError) -> Double {
        guard let number = value.doubleValue, number.isFinite else {
            throw problem("expected a number, found \(value.typeName)")
        }
        return number
    }

    /// The elements, each with its index in the path.
    func elements() throws(CaptureLoadError) -> [HARField] {
        guard let array = value.arrayValue else { throw problem("expected an array, found \(value.typeName)") }
        return array.enumerated().map { HARField(value: $1, path: "\(path)[\($0)]", source: source) }
    }

    /// A list of `{"name": …, "value": …}` objects (headers, query parameters).
    func nameValuePairs() throws(CaptureLoadError) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for element in try elements() {
            pairs.append((try element.required("name").string(), try element.required("value").string()))
        }
        return pairs
    }

    /// The whole document: its members' paths are their names (`log`).
    static func document(_ value: JSONValue, source: String) -> HARField {
        HARField(value: value, path: "", source: source)
    }
}
