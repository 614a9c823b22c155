public import FaultlineCore
import FaultlineFlow
import FaultlineProxy
public import FaultlineRules
public import FaultlineTrace
import Synchronization

/// The rules side of a running server, shared by every loop: the flow policy (rules engine and
/// lineage tracker) and the held flows. Everything here is thread-safe.
public final class RuleRuntime: Sendable {
    /// Nil when the proxy runs without rules.
    public let policy: FlowPolicy?
    public let holds: HoldRegistry
    /// Scenarios the server adds to every rule set it runs (exploration's holds), after the
    /// files' own, so a reload keeps them.
    let builtIn: [Scenario]

    public init(policy: FlowPolicy?, builtIn: [Scenario] = []) {
        self.policy = policy
        self.builtIn = builtIn
        self.holds = HoldRegistry { waiting in policy?.externalEventListeners.store(waiting, ordering: .relaxed) }
    }

    /// Swaps in a reloaded rule set, with the built-in scenarios after its own.
    func replace(_ ruleSet: RuleSet) {
        var combined = ruleSet
        combined.scenarios += builtIn
        policy?.replace(combined)
    }

    /// Something happened that conditions (`after`/`before`) and hold releases may wait for.
    public func publish(_ event: ObservedEvent) {
        policy?.engine.observe(event)
        holds.observe(event)
    }

    /// Tells the lineage tracker a flow's step and traces the `lineage.*` events it answers with.
    /// The tracker is the profile's as the step happens: a profile reloaded between a flow's
    /// request and its response gets the response.
    public func perform(_ step: LineageStep, flow: FlowID, connection: ConnectionID?, trace: TraceRecorder) {
        guard let tracker = policy?.tracker else { return }
        for event in tracker.perform(step) {
            trace.record(event.traceKind, connection: connection, flow: flow, event.traceFields)
        }
    }

    /// A rule fired; holds waiting for `rule:<name>` are released.
    func ruleFired(_ id: RuleID) {
        holds.ruleFired(id)
    }
}
