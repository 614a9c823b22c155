import FaultlineCore
import Foundation

/// A request or response body read for matching: a JSON document or a form by its fields, any
/// other body by its bytes.
enum StructuredBody {
    case json(JSONValue)
    case form([(name: String, value: String)])
    case bytes([UInt8])

    /// Reads `bytes` as the content type says (JSON also when it looks like JSON and no type is given).
    init(_ bytes: [UInt8], contentType: String?) {
        let type = contentType?.lowercased() ?? ""
        if type.contains("x-www-form-urlencoded") {
            self = .form(Self.formFields(bytes))
            return
        }
        let looksLikeJSON =
            bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }).map {
                $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[")
            } ?? false
        if type.contains("json") || (type.isEmpty && looksLikeJSON),
            let document = JSONValue.parse(bytes)
        {
            self = .json(document)
            return
        }
        self = .bytes(bytes)
    }

    /// `name=value&…` with `+` as space and %XX decoded (WHATWG URL §5.1).
    static func formFields(_ bytes: [UInt8]) -> [(name: String, value: String)] {
        bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    static func decode(_ bytes: some Collection<UInt8>) -> String {
        let spaced = String(decoding: bytes.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
        return spaced.removingPercentEncoding ?? spaced
    }

    /// The string values of fields whose name `isSecret` says, anywhere in the body.
    func secretValues(isSecret: (String) -> Bool) -> [(name: String, value: String)] {
        switch self {
        case .form(let fields): return fields.filter { isSecret($0.name) && !$0.value.isEmpty }
        case .bytes: return []
        case .json(let document):
            var found: [(String, String)] = []
            func walk(_ value: JSONValue) {
                switch value {
                case .object(let members):
                    for member in members.sorted(by: { $0.key < $1.key }) {
                        if isSecret(member.key), let text = member.value.stringValue, !text.isEmpty {
                            found.append((member.key, text))
                        } else {
                            walk(member.value)
                        }
                    }
                case .array(let elements):
                    elements.forEach(walk)
                case .null, .bool, .number, .string:
                    break
                }
            }
            walk(document)
            return found
        }
    }

    /// A text equal for two bodies exactly when they match: JSON with members sorted, forms with
    /// fields sorted, both without `ignored` fields and with secret values as `secret(name, value)`
    /// says; other bodies by their bytes.
    func canonical(ignored: Set<String>, isSecret: (String) -> Bool, secret: (String, String) -> String) -> String {
        switch self {
        case .bytes(let bytes):
            return "bytes:\(bytes.count):\(String(FNV1a.hash(bytes), radix: 16))"
        case .form(let fields):
            return "form:"
                + fields.filter { !ignored.contains($0.name.lowercased()) }
                .map { "\($0.name)=\(isSecret($0.name) ? secret($0.name, $0.value) : $0.value)" }
                .sorted().joined(separator: "&")
        case .json(let document):
            var text = "json:"
            func write(_ value: JSONValue, name: String?) {
                switch value {
                case .object(let members):
                    text += "{"
                    for member in members.sorted(by: { $0.key < $1.key })
                    where !ignored.contains(member.key.lowercased()) {
                        text += "\"\(member.key)\":"
                        write(member.value, name: member.key)
                        text += ","
                    }
                    text += "}"
                case .array(let elements):
                    text += "["
                    for element in elements {
                        write(element, name: name)
                        text += ","
                    }
                    text += "]"
                case .string(let string):
                    if let name, isSecret(name), !string.isEmpty {
                        text += secret(name, string)
                    } else {
                        text += "\"\(string)\""
                    }
                case .null, .bool, .number:
                    text += Self.scalarText(value)
                }
            }
            write(document, name: nil)
            return text
        }
    }
}

extension StructuredBody {
    /// The body's leaves by name, values as ``canonical(ignored:isSecret:secret:)`` writes them:
    /// form fields by name, JSON values by JSON pointer (RFC 6901, `/user/name`, `/items/0`); nil
    /// for a body that is neither. Lets a replay's 502 name the fields that differ.
    func leaves(ignored: Set<String>, isSecret: (String) -> Bool, secret: (String, String) -> String) -> [String:
        String]?
    {
        switch self {
        case .bytes:
            return nil
        case .form(let fields):
            var leaves: [String: String] = [:]
            for field in fields where !ignored.contains(field.name.lowercased()) {
                let value = isSecret(field.name) ? secret(field.name, field.value) : field.value
                leaves[field.name] = leaves[field.name].map { $0 + "&" + value } ?? value
            }
            return leaves
        case .json(let document):
            var leaves: [String: String] = [:]
            func walk(_ value: JSONValue, pointer: String, name: String?) {
                switch value {
                case .object(let members):
                    for member in members where !ignored.contains(member.key.lowercased()) {
                        let key = member.key
                        let escaped = key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(
                            of: "/", with: "~1")
                        walk(member.value, pointer: pointer + "/" + escaped, name: key)
                    }
                    if members.isEmpty { leaves[pointer] = "{}" }
                case .array(let elements):
                    for (index, element) in elements.enumerated() {
                        walk(element, pointer: "\(pointer)/\(index)", name: name)
                    }
                    if elements.isEmpty { leaves[pointer] = "[]" }
                case .string(let string):
                    if let name, isSecret(name), !string.isEmpty {
                        leaves[pointer] = secret(name, string)
                    } else {
                        leaves[pointer] = "\"\(string)\""
                    }
                case .null, .bool, .number:
                    leaves[pointer] = Self.scalarText(value)
                }
            }
            walk(document, pointer: "", name: nil)
            return leaves
        }
    }
}

extension StructuredBody {
    /// `null`, `true`, `false`, or a number by its value (`1.0` as `1`), so two bodies that
    /// differ only in how they spell a number match, as they did when Foundation read them.
    fileprivate static func scalarText(_ value: JSONValue) -> String {
        switch value {
        case .number(let number): JSONValue.number(number.double).jsonText()
        default: value.jsonText()
        }
    }
}
