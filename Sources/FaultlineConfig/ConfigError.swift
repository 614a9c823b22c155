import FaultlineCore

/// A problem in a configuration file, pinned to the character that caused it.
///
/// Parsers and decoders return these as values so a loader can collect every problem of a file
/// and print them the way compilers do: `Rules/x.json5:14:7: unknown key 'mathc' in rule 'a'
/// (did you mean 'match'?)`. Messages say what was expected and, for misspellings, the nearest
/// valid name.
public struct ConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The offending character: a key, a value, or the exact character of a syntax error.
    public let location: SourceLocation
    /// One sentence without the position, starting in lower case.
    public let message: String

    /// An error at `location`; `message` reads after "file:line:column: ".
    public init(_ message: String, at location: SourceLocation) {
        self.location = location
        self.message = message
    }

    /// `file:line:column: message`.
    public var description: String { "\(location): \(message)" }
}

extension ConfigError {
    /// Runs one typed read and returns its value; on error appends it to `errors` and returns nil,
    /// so a decoder can go on and report every problem of a file at once. `reader` names the
    /// decoder should anything other than a `ConfigError` be thrown, which is a bug.
    ///
    /// The closure is untyped-throwing because Swift does not infer `throws(ConfigError)` for
    /// closure literals; the typed error is recovered by a cast.
    package static func collect<Value>(
        into errors: inout [ConfigError], reader: StaticString, _ read: () throws -> Value
    ) -> Value? {
        do {
            return try read()
        } catch let error as ConfigError {
            errors.append(error)
            return nil
        } catch {
            preconditionFailure("\(reader) threw something other than ConfigError: \(error)")
        }
    }

    /// `'name' must be <expected>, found <the value>`, pointing at the value.
    ///
    /// Call when a value has the wrong type or is out of range; `expected` reads after "must be"
    /// (`"a positive integer"`, `"a number from 0 to 1"`).
    public static func mismatch(_ name: String, expected: String, found node: ConfigNode) -> ConfigError {
        ConfigError("\(name) must be \(expected), found \(node.foundDescription)", at: node.location)
    }

    /// `unknown key 'mathc' in rule 'a' (did you mean 'match'?)`, pointing at the key.
    public static func unknownKey(_ key: String, at location: SourceLocation, context: String, allowed: [String])
        -> ConfigError
    {
        ConfigError("unknown key '\(key)' in \(context)\(didYouMean(key, in: allowed))", at: location)
    }

    /// `missing required key 'status' in 'respond'`, pointing at the object that lacks it.
    public static func missingKey(_ key: String, context: String, at location: SourceLocation) -> ConfigError {
        ConfigError("missing required key '\(key)' in \(context)", at: location)
    }

    /// The closest candidate to a misspelled name: a case-insensitive match first, then the
    /// nearest by edit distance (``EditDistance/nearest(to:in:)``), then a candidate that differs
    /// by two swapped neighbours (`mathc` for `match`, which plain Levenshtein counts as two
    /// edits); nil when nothing is close.
    public static func nearest(to name: String, in candidates: [String]) -> String? {
        let lowered = name.lowercased()
        if let sameLetters = candidates.first(where: { $0.lowercased() == lowered }) { return sameLetters }
        if let near = EditDistance.nearest(to: name, in: candidates) { return near }
        return candidates.first { isAdjacentTransposition(Array(name.unicodeScalars), Array($0.unicodeScalars)) }
    }

    private static func isAdjacentTransposition(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Bool {
        guard a.count == b.count, let first = a.indices.first(where: { a[$0] != b[$0] }), first + 1 < a.count else {
            return false
        }
        return a[first] == b[first + 1] && a[first + 1] == b[first] && a[(first + 2)...] == b[(first + 2)...]
    }

    /// ` (did you mean 'match'?)` when a candidate is close to `name`, otherwise the empty string;
    /// append it to a message about an unknown name.
    public static func didYouMean(_ name: String, in candidates: [String]) -> String {
        guard let suggestion = nearest(to: name, in: candidates) else { return "" }
        return " (did you mean '\(suggestion)'?)"
    }
}
