import FaultlineConfig
import FaultlineCore

/// Typed reads shared by the scenario and auth-profile decoders; each throws a positioned error
/// that names the key and what was expected.
extension ConfigNode {
    /// A string with at least one non-space character.
    func nonEmptyString(_ name: String) throws(ConfigError) -> String {
        let value = try string(name)
        guard value.contains(where: { !$0.isWhitespace }) else {
            throw ConfigError.mismatch(name, expected: "a non-empty string", found: self)
        }
        return value
    }

    /// One of a fixed set of strings, suggesting the nearest when the value is misspelled:
    /// `'scope' must be "global" or "lineage", found "lineag" (did you mean 'lineage'?)`.
    func choice(_ name: String, of options: [String]) throws(ConfigError) -> String {
        let wording = Self.listWording(options.map { "\"\($0)\"" }, conjunction: "or")
        guard case .string(let value) = kind else { throw ConfigError.mismatch(name, expected: wording, found: self) }
        guard options.contains(value) else {
            throw ConfigError(
                "\(name) must be \(wording), found \(foundDescription)\(ConfigError.didYouMean(value, in: options))",
                at: location)
        }
        return value
    }

    /// The longest wait a rule may ask for: about 11.5 days, far past any test, and far from
    /// overflowing `Duration`.
    static let maximumSeconds = 1_000_000.0

    /// A number of seconds (fractions allowed) as a `Duration`, rounded to the nanosecond.
    func seconds(_ name: String) throws(ConfigError) -> Duration {
        let value = try double(name, in: 0...Self.maximumSeconds, expected: "a number of seconds from 0 to 1000000")
        return .nanoseconds(Int64((value * 1e9).rounded()))
    }

    /// A string, or a non-empty array of strings: `"GET"` or `["GET", "POST"]`. Each element must
    /// be non-empty.
    func stringOrList(_ name: String) throws(ConfigError) -> [(String, ConfigNode)] {
        switch kind {
        case .string:
            return [(try nonEmptyString(name), self)]
        case .array(let elements):
            guard !elements.isEmpty else {
                throw ConfigError.mismatch(name, expected: "a string or a non-empty list of strings", found: self)
            }
            var values: [(String, ConfigNode)] = []
            for element in elements {
                values.append((try element.nonEmptyString("each entry of \(name)"), element))
            }
            return values
        default:
            throw ConfigError.mismatch(name, expected: "a string or a non-empty list of strings", found: self)
        }
    }

    /// `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
    static func listWording(_ items: [String], conjunction: String) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " \(conjunction) " + items[items.count - 1]
    }
}

/// Character-level checks for things that end up on the wire.
enum WireSyntax {
    /// RFC 9110 §5.6.2 token: header names, methods, cookie names.
    static func isToken(_ text: String) -> Bool { HTTPToken.isToken(text) }

    /// RFC 9110 §5.5: a field value must not contain CR, LF or NUL (they would split or end the
    /// header section).
    static func isFieldValue(_ text: String) -> Bool {
        !text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }
}

extension ConfigNode {
    /// The node as a JSON value for a body or a pointer value. JSON has no Infinity or NaN
    /// (RFC 8259 §6), so one anywhere inside is an error at that number.
    func jsonValue() throws(ConfigError) -> JSONValue {
        switch kind {
        case .number(let value) where !value.isFinite:
            throw ConfigError("JSON cannot hold Infinity or NaN", at: location)
        case .array(let elements):
            for element in elements { _ = try element.jsonValue() }
        case .object(let members):
            for member in members { _ = try member.value.jsonValue() }
        case .null, .bool, .number, .string:
            break
        }
        return value
    }

    /// A JSON pointer written as a key (`body.json`, `jsonSet`), checked per RFC 6901.
    static func pointer(_ text: String, at location: SourceLocation) throws(ConfigError) -> String {
        do {
            _ = try JSONPointer(text)
        } catch {
            throw ConfigError("'\(text)' is not a valid JSON pointer: \(error.message)", at: location)
        }
        return text
    }
}
