import FaultlineConfig
import FaultlineCore
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
        lastSignature.withLock { $0 = Self.signature(of: directory) }
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
        let signature = Self.signature(of: directory)
        let changed = lastSignature.withLock { last -> Bool in
            defer { last = signature }
            return last != signature
        }
        guard changed, let policy = runtime.policy else { return false }
        let result = RuleSetLoader.load(directory: directory)
        if result.errors.isEmpty {
            policy.replace(result.ruleSet)
            trace.record(
                .rulesReloaded,
                [.string("directory", directory), .int("scenarios", result.ruleSet.scenarios.count)])
            report("faultline: reloaded rules from \(directory) (\(result.ruleSet.scenarios.count) scenarios)")
        } else {
            trace.record(
                .rulesRejected,
                [.string("directory", directory), .strings("errors", result.errors.map(\.description))])
            report(
                "faultline: rules in \(directory) not reloaded; the last good rules keep running:\n"
                    + result.errors.map { "  \($0)" }.joined(separator: "\n"))
        }
        return true
    }

    /// Names, sizes and modification times of the folder's rule files.
    static func signature(of directory: String) -> String {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory) else { return "unreadable" }
        return names.filter { $0.hasSuffix(".json5") }.sorted().map { name in
            let attributes = try? manager.attributesOfItem(atPath: directory + "/" + name)
            let size = (attributes?[.size] as? NSNumber)?.int64Value ?? -1
            let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            return "\(name):\(size):\(modified)"
        }.joined(separator: "|")
    }
}

extension TraceEventKind {
    static let rulesReloaded: TraceEventKind = "rules.reloaded"
    static let rulesRejected: TraceEventKind = "rules.rejected"
}
