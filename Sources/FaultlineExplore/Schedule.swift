/// One run's order, as a short string a user can paste: `pct3:42:0.0.w.1`.
///
/// The strategy and seed say how the choices were made; the choices (one per decision point,
/// dot-separated: the index of the pending step let go, oldest first, or `w` for waiting) are
/// what replays the run exactly (`--schedule`). A run that needs more decisions than the string
/// has goes on first come, first served.
public struct Schedule: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var strategy: StrategyKind
    public var seed: UInt64
    public var choices: [ExploreChoice]

    public init(strategy: StrategyKind, seed: UInt64, choices: [ExploreChoice] = []) {
        self.strategy = strategy
        self.seed = seed
        self.choices = choices
    }

    /// `STRATEGY:SEED:CHOICES`.
    public var description: String {
        "\(strategy):\(seed):" + choices.map(\.token).joined(separator: ".")
    }

    /// Choices that are not the oldest pending step: what shrinking minimises.
    public var deviations: Int { choices.filter(\.deviates).count }

    /// Reads `STRATEGY:SEED:CHOICES`; a mistake is named with its 1-based column.
    public init(parsing text: String) throws(ScheduleSyntaxError) {
        let characters = Array(text)
        var position = 0
        func field(_ what: String) throws(ScheduleSyntaxError) -> (String, Int) {
            let start = position
            while position < characters.count, characters[position] != ":" { position += 1 }
            guard position < characters.count else {
                throw ScheduleSyntaxError(column: position + 1, message: "expected ':' after the \(what)", text: text)
            }
            defer { position += 1 }
            return (String(characters[start..<position]), start)
        }
        let (strategyText, strategyStart) = try field("strategy")
        guard let strategy = StrategyKind(strategyText) else {
            throw ScheduleSyntaxError(
                column: strategyStart + 1,
                message: "unknown strategy '\(strategyText)'; expected random, pctN (pct3), exhaustive or fcfs",
                text: text)
        }
        let (seedText, seedStart) = try field("seed")
        guard let seed = UInt64(seedText) else {
            throw ScheduleSyntaxError(
                column: seedStart + 1, message: "the seed must be a whole number, found '\(seedText)'", text: text)
        }
        var choices: [ExploreChoice] = []
        if position < characters.count {
            var start = position
            for index in position...characters.count {
                guard index == characters.count || characters[index] == "." else { continue }
                let token = String(characters[start..<index])
                if token == "w" {
                    choices.append(.wait)
                } else if let step = Int(token), step >= 0, token.allSatisfy(\.isASCII) {
                    choices.append(.step(step))
                } else {
                    throw ScheduleSyntaxError(
                        column: start + 1,
                        message: "choice \(choices.count + 1) must be a step index (0, 1, …) or w, found '\(token)'",
                        text: text)
                }
                start = index + 1
            }
        }
        self.init(strategy: strategy, seed: seed, choices: choices)
    }
}

/// A `--schedule` string that does not read: where, and what was expected.
public struct ScheduleSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based.
    public let column: Int
    public let message: String
    public let text: String

    /// `schedule 'pct3:x:0': column 6: the seed must be a whole number, found 'x'`.
    public var description: String { "schedule '\(text)': column \(column): \(message)" }
}

/// How choices are made.
public enum StrategyKind: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Uniformly among the pending steps (and waiting).
    case random
    /// Probabilistic concurrency testing (Burckhardt et al., ASPLOS 2010): random priorities with
    /// depth − 1 priority change points.
    case pct(depth: Int)
    /// Depth-first over every choice, up to a number of decisions.
    case exhaustive
    /// First come, first served: every choice 0 (arrival order).
    case fcfs

    /// `random`, `pct3`, `exhaustive`, `fcfs`.
    public var description: String {
        switch self {
        case .random: "random"
        case .pct(let depth): "pct\(depth)"
        case .exhaustive: "exhaustive"
        case .fcfs: "fcfs"
        }
    }

    /// Reads a name as `description` writes it (`pct` alone is depth 3).
    public init?(_ name: String) {
        switch name {
        case "random": self = .random
        case "exhaustive": self = .exhaustive
        case "fcfs": self = .fcfs
        case "pct": self = .pct(depth: 3)
        default:
            guard name.hasPrefix("pct"), let depth = Int(name.dropFirst(3)), (1...64).contains(depth) else {
                return nil
            }
            self = .pct(depth: depth)
        }
    }
}
