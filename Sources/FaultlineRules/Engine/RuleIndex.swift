/// Which rules of one phase can match a flow, found by looking up the flow's host, first path
/// segment and method instead of testing every rule.
///
/// Theory of operation: each rule is filed under at most one key, a fact its match demands
/// exactly, in this order of preference:
/// - `host`: a host glob without wildcards (the flow's host, lowercased, must equal it);
/// - `firstSegment`: a path glob whose first segment is literal (`/api/**` demands `api`);
/// - `method`: the rule is filed under each method it lists.
///
/// A rule with none of these is tested on every flow. The index is only a shortcut: the rules it
/// yields are still tested whole (`FlowMatcher.matches`), so it may yield a rule that does not
/// match, but never withholds one that does. Candidates come out in the engine's order (scenarios
/// in rule-set order, rules in file order), so which rules fire, and in what order, is exactly
/// what testing every rule gives. Measured on `Benchmarks/micro`'s rewrite row (50 rules that
/// never match): a rule the index skips costs nothing, where testing it cost about 360
/// instructions.
struct RuleIndex {
    /// A rule's place: its scenario (an index into the engine's runtimes) and its index in that
    /// scenario's rules.
    struct Position {
        let scenario: Int
        let rule: Int
    }

    private enum Key: Hashable {
        case host(String)
        case firstSegment(String)
        case method(String)
    }

    /// Ordinal to position: the phase's rules in engine order.
    private let positions: [Position]
    /// The ordinals filed under each key, ascending.
    private let keyed: [Key: [Int]]
    /// The ordinals of rules filed under no key: candidates for every flow.
    private let unkeyed: [Int]
    private let hasHostKeys: Bool
    private let hasSegmentKeys: Bool
    private let hasMethodKeys: Bool

    init(_ runtimes: [ScenarioRuntime], phase: RulePhase) {
        var positions: [Position] = []
        var keyed: [Key: [Int]] = [:]
        var unkeyed: [Int] = []
        for (scenario, runtime) in runtimes.enumerated() {
            for (rule, model) in runtime.scenario.rules.enumerated() where model.phase == phase {
                let ordinal = positions.count
                positions.append(Position(scenario: scenario, rule: rule))
                let keys = Self.keys(of: runtime.matchers[rule])
                if keys.isEmpty {
                    unkeyed.append(ordinal)
                } else {
                    for key in keys { keyed[key, default: []].append(ordinal) }
                }
            }
        }
        self.positions = positions
        self.keyed = keyed
        self.unkeyed = unkeyed
        hasHostKeys = keyed.keys.contains { if case .host = $0 { return true } else { return false } }
        hasSegmentKeys = keyed.keys.contains { if case .firstSegment = $0 { return true } else { return false } }
        hasMethodKeys = keyed.keys.contains { if case .method = $0 { return true } else { return false } }
    }

    /// The keys a rule is filed under; empty for a rule tested on every flow. A rule that lists
    /// no method at all can match nothing and gets the key of a method no request has.
    private static func keys(of matcher: FlowMatcher) -> [Key] {
        if let host = matcher.literalHost { return [.host(host)] }
        if let segment = matcher.literalFirstSegment { return [.firstSegment(segment)] }
        if let methods = matcher.methods { return methods.isEmpty ? [.method("")] : methods.map(Key.method) }
        return []
    }

    /// How many rules the phase has; ordinals run from 0 to `count - 1`.
    var count: Int { positions.count }

    func position(of ordinal: Int) -> Position { positions[ordinal] }

    /// Sets the bit of every rule that may match the flow in `candidates` (ordinal `n` is bit
    /// `n % 64` of word `n / 64`), after clearing the words the phase uses; grows `candidates` if
    /// it is too short. Returns the number of words in use.
    func markCandidates(_ facts: inout FlowFacts, in candidates: inout [UInt64]) -> Int {
        let words = (positions.count + 63) / 64
        if candidates.count < words { candidates.append(contentsOf: repeatElement(0, count: words - candidates.count)) }
        for word in 0..<words { candidates[word] = 0 }
        func mark(_ ordinals: [Int]) {
            for ordinal in ordinals { candidates[ordinal >> 6] |= 1 << UInt64(ordinal & 63) }
        }
        mark(unkeyed)
        if hasHostKeys, let ordinals = keyed[.host(facts.hostKey())] { mark(ordinals) }
        if hasSegmentKeys, let segment = Self.firstSegment(of: facts.flow.path),
            let ordinals = keyed[.firstSegment(segment)]
        {
            mark(ordinals)
        }
        if hasMethodKeys, let ordinals = keyed[.method(facts.flow.method)] { mark(ordinals) }
        return words
    }

    /// The text between a path's leading `/` and the next `/` (or its end); nil for a path that
    /// does not start with `/` (`*`, RFC 9112 §3.2.4), which no keyed path glob matches.
    static func firstSegment(of path: String) -> String? {
        let bytes = path.utf8
        guard bytes.first == UInt8(ascii: "/") else { return nil }
        let start = bytes.index(after: bytes.startIndex)
        let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
        return String(path[start..<end])
    }
}
