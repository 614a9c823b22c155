import FaultlineConfig
import FaultlineCore
import FaultlineFlow
import FaultlineProxy
import FaultlineRules
public import FaultlineTrace
import Foundation
import Synchronization

/// Reloads a rules folder when its files change. A bad edit is reported (on the `report` callback
/// and in the trace) and the last good rule set keeps running.
///
/// It polls the folder's `*.json5` names, sizes and modification times on its own thread every
/// `interval`; polling works the same on Linux and macOS and a rules folder holds a handful of files.
public final class RulesWatcher: Sendable {
    private let directory: String
    private let runtime: RuleRuntime
    private let trace: TraceRecorder
    private let interval: Duration
    private let report: @Sendable (String) -> Void
    private let stopped = Atomic<Bool>(false)
    private let lastSignature = Mutex<String>("")

    /// Starts watching; the folder as loaded at start is the baseline.
    public init(
        directory: String, runtime: RuleRuntime, trace: TraceRecorder, interval: Duration = .milliseconds(300),
        report: @escaping @Sendable (String) -> Void
    ) {
        self.directory = directory
        self.runtime = runtime
        self.trace = trace
        self.interval = interval
        self.report = report
        lastSignature.withLock { $0 = RuleSetLoader.signature(of: directory) }
        let thread = Thread { [self] in self.run() }
        thread.name = "faultline-rules-watcher"
        thread.start()
    }

    public func stop() { stopped.store(true, ordering: .relaxed) }

    private func run() {
        while !stopped.load(ordering: .relaxed) {
            Thread.sleep(forTimeInterval: interval.inSeconds)
            checkOnce()
        }
    }

    /// Reloads if the folder changed since the last check; returns true when a reload happened.
    @discardableResult
    public func checkOnce() -> Bool {
        let signature = RuleSetLoader.signature(of: directory)
        let changed = lastSignature.withLock { last -> Bool in
            defer { last = signature }
            return last != signature
        }
        guard changed, runtime.policy != nil else { return false }
        switch Self.reload(directory: directory, runtime: runtime, trace: trace) {
        case .reloaded(let scenarios, let warnings):
            report(
                "faultline: reloaded rules from \(directory) (\(scenarios) scenarios)"
                    + warnings.map { "\n  \($0)" }.joined())
        case .rejected(let errors):
            report(
                "faultline: rules in \(directory) not reloaded; the last good rules keep running:\n"
                    + errors.map { "  \($0)" }.joined(separator: "\n"))
        case .noRules:
            break
        }
        return true
    }

    /// What `reload` did.
    public enum ReloadOutcome: Sendable, Equatable {
        /// The folder loaded cleanly and its rule set now runs; the number of scenarios and the
        /// loader's warnings (`file:line:column: warning: message`).
        case reloaded(scenarios: Int, warnings: [String])
        /// The folder has errors (`file:line:column: message`); the last good rules keep running.
        case rejected(errors: [String])
        /// The runtime has no rules to replace (the proxy started without rules).
        case noRules
    }

    /// Loads `directory` and, when it has no errors, swaps its rule set into `runtime`; traces
    /// `rules.reloaded` or `rules.rejected`. Used by the watcher and by the control API's
    /// `POST /v1/rules/reload`; callable from any thread (it reads the folder, so not in a hot path).
    public static func reload(directory: String, runtime: RuleRuntime, trace: TraceRecorder) -> ReloadOutcome {
        guard runtime.policy != nil else { return .noRules }
        let result = RuleSetLoader.load(directory: directory)
        guard result.errors.isEmpty else {
            let errors = result.errors.map(\.description)
            trace.record(.rulesRejected, [.string("directory", directory), .strings("errors", errors)])
            return .rejected(errors: errors)
        }
        runtime.replace(result.ruleSet)
        trace.record(.rulesReloaded, [.string("directory", directory)] + summaryFields(result.ruleSet))
        return .reloaded(scenarios: result.ruleSet.scenarios.count, warnings: result.warningLines)
    }

    /// What `rules.loaded` and `rules.reloaded` say about a rule set: `scenarios`, `rules` (both
    /// counts) and `profile` (whether an auth profile is loaded), so a checker can tell "no auth
    /// profile" from "a profile, but no login seen".
    static func summaryFields(_ ruleSet: RuleSet) -> [TraceField] {
        [
            .int("scenarios", ruleSet.scenarios.count),
            .int("rules", ruleSet.scenarios.reduce(0) { $0 + $1.rules.count }),
            .bool("profile", ruleSet.profile != nil),
        ]
    }
}

extension TraceEventKind {
    static let rulesLoaded: TraceEventKind = "rules.loaded"
    static let rulesReloaded: TraceEventKind = "rules.reloaded"
    static let rulesRejected: TraceEventKind = "rules.rejected"
}
