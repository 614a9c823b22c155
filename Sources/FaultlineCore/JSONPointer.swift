/// An RFC 6901 JSON pointer such as `/items/0/access_token`, split into its reference tokens.
///
/// Parse pointers when loading rules (so a typo is reported with the file position) and keep the
/// value; ``JSONValue/value(at:)-(JSONPointer)`` and ``JSONValue/set(_:at:)-(_,JSONPointer)``
/// then walk a body without re-parsing.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    /// Unescaped reference tokens; empty for the whole document (`""`).
    public let tokens: [String]

    /// Parses pointer text. RFC 6901 §3: empty, or `/` followed by tokens separated by `/`, where
    /// `~0` stands for `~` and `~1` for `/`; any other `~` is an error.
    public init(_ text: String) throws(JSONPointerError) {
        guard !text.isEmpty else {
            tokens = []
            return
        }
        guard text.hasPrefix("/") else {
            throw JSONPointerError(pointer: text, message: "a JSON pointer must be empty or start with '/'")
        }
        var parsed: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var scalars = raw.unicodeScalars.makeIterator()
            while let scalar = scalars.next() {
                guard scalar == "~" else {
                    token.unicodeScalars.append(scalar)
                    continue
                }
                switch scalars.next() {
                case "0": token += "~"
                case "1": token += "/"
                default:
                    throw JSONPointerError(
                        pointer: text, message: "'~' must be followed by '0' or '1' in a JSON pointer")
                }
            }
            parsed.append(token)
        }
        tokens = parsed
    }

    /// Builds a pointer from unescaped tokens.
    public init(tokens: [String]) {
        self.tokens = tokens
    }

    /// The pointer text, with `~` and `/` escaped again.
    public var description: String {
        tokens.map { "/" + $0.replacingTildeAndSlash() }.joined()
    }

    /// The array index a token names: `0` or digits without a leading zero (RFC 6901 §4).
    package static func arrayIndex(_ token: String) -> Int? {
        guard let first = token.utf8.first, token.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        if first == 0x30, token.utf8.count > 1 { return nil }
        return Int(token)
    }
}

/// A JSON pointer that is malformed, or that cannot be set in a given value.
public struct JSONPointerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The pointer as written.
    public let pointer: String
    /// What is wrong, in one phrase.
    public let message: String

    /// An error about `pointer`.
    public init(pointer: String, message: String) {
        self.pointer = pointer
        self.message = message
    }

    /// `JSON pointer '/a~2': '~' must be followed by '0' or '1' in a JSON pointer`.
    public var description: String { "JSON pointer '\(pointer)': \(message)" }
}

extension String {
    fileprivate func replacingTildeAndSlash() -> String {
        var escaped = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
