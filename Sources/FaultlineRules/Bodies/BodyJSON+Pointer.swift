import FaultlineConfig

extension BodyJSON {
    /// The value an RFC 6901 JSON pointer names: `""` is the whole document, `/a/0/b~1c` walks
    /// member `a`, element 0, member `b/c`. nil when the pointer is malformed (no leading `/`,
    /// a `~` not followed by `0` or `1`) or names nothing (missing member, index out of range,
    /// `-`, an index with a leading zero, a step into a scalar).
    package func value(at pointer: String) -> BodyJSON? {
        if pointer.isEmpty { return self }
        guard pointer.hasPrefix("/") else { return nil }
        var current = self
        for rawToken in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard let token = Self.unescape(rawToken) else { return nil }
            switch current {
            case .object(let members):
                guard let member = members[token] else { return nil }
                current = member
            case .array(let elements):
                guard let position = Self.arrayIndex(token), position < elements.count else { return nil }
                current = elements[position]
            case .null, .bool, .number, .string:
                return nil
            }
        }
        return current
    }

    /// `~1` is `/` and `~0` is `~` (RFC 6901 §4), read left to right so `~01` is `~1`.
    private static func unescape(_ token: Substring) -> String? {
        guard token.contains("~") else { return String(token) }
        var output = ""
        var iterator = token.makeIterator()
        while let character = iterator.next() {
            guard character == "~" else {
                output.append(character)
                continue
            }
            switch iterator.next() {
            case "0": output.append("~")
            case "1": output.append("/")
            default: return nil
            }
        }
        return output
    }

    /// `0` or a decimal without leading zero (RFC 6901 §4); `-` names the element after the
    /// last, which never exists for a read.
    private static func arrayIndex(_ token: String) -> Int? {
        guard !token.isEmpty, token.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            token == "0" || !token.hasPrefix("0")
        else { return nil }
        return Int(token)
    }

    /// True when this value equals a value written in a rule file, compared as JSON: numbers by
    /// value (`1` equals `1.0`), objects regardless of member order.
    func equals(_ expected: ConfigValue) -> Bool {
        switch (self, expected) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let text), .number(let b)): return Double(text) == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.equals($1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count && b.allSatisfy { member in a[member.key]?.equals(member.value) ?? false }
        default: return false
        }
    }

    /// The text a credential at this place carries: a string's value or a number's source text;
    /// nil for anything else.
    var credentialText: String? {
        switch self {
        case .string(let text): return text
        case .number(let text): return text
        case .null, .bool, .array, .object: return nil
        }
    }
}
