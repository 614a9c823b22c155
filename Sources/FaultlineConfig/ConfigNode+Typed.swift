import FaultlineCore

/// Typed reads of one node that throw a positioned ``ConfigError`` naming what was expected.
///
/// `name` is how the value reads in the message, usually the quoted key (`'times'`), giving
/// `'times' must be a positive integer, found "3"` at the value's position.
extension ConfigNode {
    /// The string, or an error when the node is something else.
    public func string(_ name: String) throws(ConfigError) -> String {
        guard case .string(let value) = kind else {
            throw ConfigError.mismatch(name, expected: "a string", found: self)
        }
        return value
    }

    /// The boolean, or an error when the node is something else.
    public func bool(_ name: String) throws(ConfigError) -> Bool {
        guard case .bool(let value) = kind else {
            throw ConfigError.mismatch(name, expected: "true or false", found: self)
        }
        return value
    }

    /// The elements, or an error when the node is not an array.
    public func array(_ name: String) throws(ConfigError) -> [ConfigNode] {
        guard case .array(let elements) = kind else {
            throw ConfigError.mismatch(name, expected: "an array", found: self)
        }
        return elements
    }

    /// The number as an integer within `range`. A fraction, a non-number or a value outside the
    /// range is an error saying `expected` (by default worded from the range: "a positive
    /// integer", "an integer from 100 to 599").
    public func int(_ name: String, in range: ClosedRange<Int>? = nil, expected: String? = nil) throws(ConfigError)
        -> Int
    {
        let wording = expected ?? Self.integerWording(range)
        // 2^53: beyond it doubles no longer hold every integer, so the file's digits may have been rounded.
        guard case .number(let number) = kind, case let value = number.double, value == value.rounded(),
            abs(value) <= 9_007_199_254_740_992
        else {
            throw ConfigError.mismatch(name, expected: wording, found: self)
        }
        let integer = Int(value)
        if let range, !range.contains(integer) { throw ConfigError.mismatch(name, expected: wording, found: self) }
        return integer
    }

    /// The number, finite and within `range`; otherwise an error saying `expected` (by default
    /// "a number" or "a number from 0 to 1").
    public func double(_ name: String, in range: ClosedRange<Double>? = nil, expected: String? = nil)
        throws(ConfigError) -> Double
    {
        let wording =
            expected ?? range.map { "a number from \(Self.text($0.lowerBound)) to \(Self.text($0.upperBound))" }
            ?? "a number"
        guard case .number(let number) = kind, case let value = number.double, value.isFinite else {
            throw ConfigError.mismatch(name, expected: wording, found: self)
        }
        if let range, !range.contains(value) { throw ConfigError.mismatch(name, expected: wording, found: self) }
        return value
    }

    /// A reader over this object node; see ``ConfigObjectReader/init(_:name:context:)``.
    public func object(_ name: String, context: String) throws(ConfigError) -> ConfigObjectReader {
        try ConfigObjectReader(self, name: name, context: context)
    }

    private static func integerWording(_ range: ClosedRange<Int>?) -> String {
        guard let range else { return "an integer" }
        switch (range.lowerBound, range.upperBound) {
        case (1, Int.max): return "a positive integer"
        case (0, Int.max): return "an integer ≥ 0"
        case (let low, Int.max): return "an integer ≥ \(low)"
        case (let low, let high): return "an integer from \(low) to \(high)"
        }
    }

    private static func text(_ value: Double) -> String { JSONNumber(value).text }
}
