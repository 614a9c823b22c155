/// Delta debugging (Zeller and Hildebrandt, "Simplifying and Isolating Failure-Inducing Input",
/// IEEE TSE 2002) over a failing schedule's deviations from arrival order: the smallest set of
/// deviations, each kept at its decision, that still fails.
///
/// A candidate keeps some deviations and makes every other decision first come, first served;
/// it is judged by running it (`fails`), never by reasoning, and at most `budget` runs are made.
public enum Shrinker {
    /// One deviation: at decision `index`, `choice` instead of the oldest pending step.
    public struct Deviation: Sendable, Equatable, Hashable {
        public let index: Int
        public let choice: ExploreChoice

        public init(index: Int, choice: ExploreChoice) {
            self.index = index
            self.choice = choice
        }
    }

    /// The deviations of `choices`.
    public static func deviations(of choices: [ExploreChoice]) -> [Deviation] {
        choices.enumerated().filter { $0.element.deviates }.map { Deviation(index: $0.offset, choice: $0.element) }
    }

    /// Choices that take `deviations` at their decisions and the oldest step everywhere else.
    public static func choices(keeping deviations: [Deviation]) -> [ExploreChoice] {
        guard let last = deviations.map(\.index).max() else { return [] }
        var choices = Array(repeating: ExploreChoice.step(0), count: last + 1)
        for deviation in deviations { choices[deviation.index] = deviation.choice }
        return choices
    }

    /// Choices that take the `kept` deviations of a failing schedule (whose deviations are
    /// `failing`) and the oldest step everywhere else. A wait left out is a decision fewer, not
    /// a step let go earlier: the decisions after it move up by one, so that a kept deviation
    /// still lands on the decision it was made at (a fruitless wait at the start would otherwise
    /// push every later deviation one step late, and never shrink away).
    public static func choices(keeping kept: [Deviation], of failing: [Deviation]) -> [ExploreChoice] {
        let keptIndices = Set(kept.map(\.index))
        let droppedWaits = failing.filter { $0.choice == .wait && !keptIndices.contains($0.index) }.map(\.index)
        return choices(
            keeping: kept.map { deviation in
                Deviation(
                    index: deviation.index - droppedWaits.count(where: { $0 < deviation.index }),
                    choice: deviation.choice)
            })
    }

    /// The result of a shrink: the smallest failing set found, and how many runs it took.
    public struct Result: Sendable, Equatable {
        public let deviations: [Deviation]
        public let runs: Int
    }

    /// ddmin over `failing` (which is known to fail): first the empty set (arrival order), then
    /// halves, their complements, and finer splits, until no smaller set fails or `budget` runs
    /// were made.
    public static func ddmin(
        _ failing: [Deviation], budget: Int, fails: ([Deviation]) async -> Bool
    ) async -> Result {
        var runs = 0
        func test(_ candidate: [Deviation]) async -> Bool {
            guard runs < budget else { return false }
            runs += 1
            return await fails(candidate)
        }
        if failing.isEmpty { return Result(deviations: [], runs: 0) }
        if await test([]) { return Result(deviations: [], runs: runs) }
        var current = failing
        var granularity = 2
        while current.count >= 2, runs < budget {
            let chunks = split(current, into: granularity)
            var reduced = false
            for chunk in chunks where await test(chunk) {
                current = chunk
                granularity = 2
                reduced = true
                break
            }
            if !reduced, granularity > 2 || chunks.count > 2 {
                for index in chunks.indices {
                    let complement = chunks.enumerated().filter { $0.offset != index }.flatMap(\.element)
                    if await test(complement) {
                        current = complement
                        granularity = max(granularity - 1, 2)
                        reduced = true
                        break
                    }
                }
            }
            if !reduced {
                guard granularity < current.count else { break }
                granularity = min(granularity * 2, current.count)
            }
        }
        return Result(deviations: current, runs: runs)
    }

    /// `items` in `count` nearly equal consecutive chunks.
    static func split<T>(_ items: [T], into count: Int) -> [[T]] {
        var chunks: [[T]] = []
        var start = 0
        for part in 0..<count {
            let end = start + (items.count - start) / (count - part)
            if end > start { chunks.append(Array(items[start..<end])) }
            start = end
        }
        return chunks
    }
}
