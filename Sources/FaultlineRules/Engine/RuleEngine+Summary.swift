import Synchronization

/// What the proxy asks the engine on every flow, answered without taking the engine's lock: is
/// there any enabled rule of this phase, must the request body be read first, does any scenario
/// wait for flow events. Recomputed whenever the rules or their switches change.
struct EngineSummary: OptionSet, Sendable {
    let rawValue: UInt8

    static let requestRules = EngineSummary(rawValue: 1 << 0)
    static let responseRules = EngineSummary(rawValue: 1 << 1)
    /// An enabled request-phase rule matches on the request body.
    static let requestBody = EngineSummary(rawValue: 1 << 2)
    /// An enabled response-phase rule matches on the request body.
    static let requestBodyAtResponse = EngineSummary(rawValue: 1 << 3)
    /// An enabled rule duplicates requests (the copies need the whole body).
    static let duplicates = EngineSummary(rawValue: 1 << 4)
    /// Some scenario (enabled or not: they record regardless) has an `after`/`before` on a flow
    /// stage (`<role>.<stage>` or `delivered:<rule>`).
    static let flowEventConditions = EngineSummary(rawValue: 1 << 5)
    /// An enabled rule replays a Set-Cookie seen earlier (`setCookie: { replay }`).
    static let cookieReplay = EngineSummary(rawValue: 1 << 6)

    init(rawValue: UInt8) { self.rawValue = rawValue }

    init(_ engine: EngineState) {
        var summary: EngineSummary = []
        for runtime in engine.runtimes {
            for (index, rule) in runtime.scenario.rules.enumerated() {
                for reference in [rule.conditions.after, rule.conditions.before].compactMap({ $0 }) {
                    switch reference {
                    case .role, .ruleDelivered: summary.insert(.flowEventConditions)
                    case .rule, .mark: break
                    }
                }
                guard runtime.enabled, runtime.ruleEnabled[index] else { continue }
                summary.insert(rule.phase == .request ? .requestRules : .responseRules)
                if runtime.matchers[index].readsBody {
                    summary.insert(rule.phase == .request ? .requestBody : .requestBodyAtResponse)
                }
                for action in rule.actions {
                    switch action {
                    case .duplicate: summary.insert(.duplicates)
                    case .setCookie(.replay): summary.insert(.cookieReplay)
                    default: break
                    }
                }
            }
        }
        self = summary
    }
}

extension RuleEngine {
    /// True when some enabled rule belongs to `phase`; when false, `evaluate` for that phase
    /// returns nothing and the proxy may skip it.
    public func hasRules(in phase: RulePhase) -> Bool {
        summary.contains(phase == .request ? .requestRules : .responseRules)
    }

    /// True when an enabled rule duplicates requests, so request bodies must be kept.
    public var duplicatesRequests: Bool { summary.contains(.duplicates) }

    /// True when some scenario waits for flow stages (`after`/`before` on `<role>.<stage>` or
    /// `delivered:<rule>`), so `observe` has work to do for them.
    public var observesFlowEvents: Bool { summary.contains(.flowEventConditions) }

    /// True when an enabled rule replays an earlier Set-Cookie, so responses' cookies must be remembered.
    public var replaysCookies: Bool { summary.contains(.cookieReplay) }

    var summary: EngineSummary { EngineSummary(rawValue: summaryBits.load(ordering: .acquiring)) }

    /// Call under the state lock after anything that changes rules or switches.
    func refreshSummary(_ engine: EngineState) {
        summaryBits.store(EngineSummary(engine).rawValue, ordering: .releasing)
    }
}
