/// One slice of the schedules, `--shard K/N`: schedule i belongs to shard (i mod N) + 1.
public struct Shard: Sendable, Equatable, Codable, CustomStringConvertible {
    /// 1-based.
    public let index: Int
    public let count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// Reads `K/N`.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    public func contains(_ schedule: Int) -> Bool { schedule % count == index - 1 }

    public var description: String { "\(index)/\(count)" }
}
