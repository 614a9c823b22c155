/// One credential lineage (Rules/README.md, "The auth profile"): `L1`, `L2`, ... in the order logins succeeded.
public struct LineageID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// 1 for the first lineage the tracker started.
    public let rawValue: Int

    /// The lineage with this number (1-based).
    public init(_ rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Reads `L3` (or `l3`); nil for anything else.
    public init?(_ text: String) {
        guard let first = text.first, first == "L" || first == "l", let number = Int(text.dropFirst()), number > 0
        else { return nil }
        self.init(number)
    }

    public var description: String { "L\(rawValue)" }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
