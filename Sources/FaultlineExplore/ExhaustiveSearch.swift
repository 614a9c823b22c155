/// Depth-first search over every order of steps, one run per leaf, up to `maxSteps` decisions
/// (later decisions go first come, first served, and are counted as cut by the bound).
///
/// Runs are the search's only way to learn what is pending: after each run, `next(after:)` takes
/// its decisions, extends the search path with the new ones and backtracks to the deepest
/// decision with an untried alternative.
///
/// Orders that only swap independent steps are not run again: at a decision, a step whose flow
/// is independent of every other step pending there is tried first or not at all, since letting
/// it go earlier or later only moves it past steps it cannot affect (a cheap form of
/// partial-order reduction: Godefroid, "Partial-Order Methods for the Verification of Concurrent
/// Systems", 1996). Two flows are independent when they share no credential lineage and no
/// client connection (the caller says, from the run's trace). Waiting depends on everything. A
/// step's consequences (the requests a response lets the client send) arrive later and are
/// decided then, so the reduction is a heuristic over what is pending, not a proof.
public struct ExhaustiveSearch: Sendable {
    private struct Node: Sendable {
        let flows: [UInt64]
        let canWait: Bool
        /// Choices tried here, in order; the last one is the current path's.
        var tried: [ExploreChoice]
    }

    /// Decisions explored; later ones go first come, first served.
    public let maxSteps: Int
    private var path: [Node] = []
    /// Decisions beyond `maxSteps` that had other choices, over all runs.
    public private(set) var cut = 0
    /// Alternatives skipped because they only swapped independent steps.
    public private(set) var pruned = 0

    public init(maxSteps: Int) { self.maxSteps = maxSteps }

    /// The choices of the first run: none (first come, first served).
    public var first: [ExploreChoice] { [] }

    /// Folds in the run just made (which followed the last prefix returned) and returns the
    /// next prefix, or nil when every order within the bound was explored.
    public mutating func next(
        after record: ExploreRunRecord, independent: (UInt64, UInt64) -> Bool
    ) -> [ExploreChoice]? {
        for decision in record.decisions.dropFirst(path.count) {
            guard decision.index < maxSteps else {
                if decision.alternatives > 1 { cut += 1 }
                continue
            }
            path.append(
                Node(
                    flows: decision.pendingFlows, canWait: decision.alternatives > decision.pending.count,
                    tried: [record.choices[decision.index]]))
        }
        while var node = path.popLast() {
            guard let alternative = nextAlternative(&node, independent: independent) else { continue }
            node.tried.append(alternative)
            path.append(node)
            return path.map { $0.tried[$0.tried.count - 1] }
        }
        return nil
    }

    /// The next untried alternative of `node`, skipping (and counting) steps independent of
    /// every other step pending there.
    private mutating func nextAlternative(
        _ node: inout Node, independent: (UInt64, UInt64) -> Bool
    ) -> ExploreChoice? {
        var candidates = node.flows.indices.map(ExploreChoice.step)
        if node.canWait { candidates.append(.wait) }
        for candidate in candidates where !node.tried.contains(candidate) {
            if case .step(let index) = candidate {
                let flow = node.flows[index]
                let others = node.flows.enumerated().filter { $0.offset != index }.map(\.element)
                if others.allSatisfy({ $0 != flow && independent($0, flow) }) {
                    node.tried.append(candidate)
                    pruned += 1
                    continue
                }
            }
            return candidate
        }
        return nil
    }
}
