import FaultlineConfig
import Foundation
import Synchronization
import Testing

@testable import FaultlineRules

/// Builders for hand-made rule sets (the loader is written elsewhere) and a concurrency helper.
enum Fixture {
    static func rule(
        _ name: String, phase: RulePhase = .request, match: FlowMatch = FlowMatch(),
        when conditions: RuleConditions = RuleConditions(), then transition: String? = nil,
        actions: [RuleAction] = [.delay(.zero)]
    ) -> Rule {
        Rule(
            name: name, phase: phase, match: match, conditions: conditions, transition: transition, actions: actions,
            location: FaultlineConfig.SourceLocation(file: "test.json5", line: 1, column: 1))
    }

    static func scenario(
        _ name: String, states: [String] = [], initialState: String? = nil, scope: Scenario.Scope = .global,
        seed: UInt64 = 0, enabled: Bool = true, rules: [Rule]
    ) -> Scenario {
        Scenario(
            name: name, file: "\(name).json5", enabled: enabled, states: states, initialState: initialState,
            scope: scope, seed: seed, rules: rules)
    }

    static func engine(_ scenarios: Scenario...) -> RuleEngine {
        RuleEngine(ruleSet: RuleSet(scenarios: scenarios))
    }

    /// Names (`scenario/rule`) of the rules that fire on `flow`.
    static func fire(
        _ engine: RuleEngine, _ flow: FlowView = FlowView(), phase: RulePhase = .request
    ) -> [String] {
        engine.evaluate(flow, phase: phase).map(\.id.description)
    }

    static func matches(_ match: FlowMatch, _ flow: FlowView) -> Bool {
        var facts = FlowFacts(flow)
        return FlowMatcher(match).matches(&facts)
    }

    static func state(_ engine: RuleEngine, _ scenario: String) -> String? {
        engine.states().first { $0.scenario == scenario }?.state
    }

    /// Runs `body` on `count` threads released together, so they really contend; waits at most
    /// `deadline` seconds and fails the test (instead of hanging) if they do not finish.
    static func concurrently(
        _ count: Int, deadline: Double = 30, sourceLocation: Testing.SourceLocation = #_sourceLocation,
        _ body: @escaping @Sendable (Int) -> Void
    ) {
        let ready = Atomic<Int>(0)
        let go = Atomic<Bool>(false)
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                ready.add(1, ordering: .sequentiallyConsistent)
                while !go.load(ordering: .sequentiallyConsistent) { sched_yield() }
                body(index)
                group.leave()
            }
            thread.start()
        }
        let start = DispatchTime.now()
        while ready.load(ordering: .sequentiallyConsistent) < count {
            if DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds > UInt64(deadline * 1e9) { break }
            sched_yield()
        }
        go.store(true, ordering: .sequentiallyConsistent)
        let finished = group.wait(timeout: .now() + deadline) == .success
        #expect(finished, "threads did not finish within \(deadline) s", sourceLocation: sourceLocation)
    }
}

/// `Fixture.rule`, shorter.
func rule(
    _ name: String, phase: RulePhase = .request, match: FlowMatch = FlowMatch(),
    when conditions: RuleConditions = RuleConditions(), then transition: String? = nil,
    actions: [RuleAction] = [.delay(.zero)]
) -> Rule {
    Fixture.rule(name, phase: phase, match: match, when: conditions, then: transition, actions: actions)
}

/// `Fixture.scenario`, shorter.
func scenario(
    _ name: String, states: [String] = [], initialState: String? = nil, scope: Scenario.Scope = .global,
    seed: UInt64 = 0, enabled: Bool = true, rules: [Rule]
) -> Scenario {
    Fixture.scenario(
        name, states: states, initialState: initialState, scope: scope, seed: seed, enabled: enabled, rules: rules)
}

/// A thread-safe list for results gathered from several threads.
///
/// `@unchecked Sendable`: `items` is only touched with `lock` held. NSLock (a pthread mutex)
/// rather than `Mutex`, so ThreadSanitizer sees the ordering.
final class Collector<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Element] = []

    func append(_ item: Element) {
        lock.withLock { items.append(item) }
    }

    func append(contentsOf more: [Element]) {
        lock.withLock { items.append(contentsOf: more) }
    }

    var all: [Element] { lock.withLock { items } }
}
