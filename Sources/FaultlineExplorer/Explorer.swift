public import FaultlineContract
import FaultlineCore
public import FaultlineExplore
import FaultlineTrace
import Foundation

/// Where an exploration stands, for progress lines.
public struct ExploreProgress: Sendable, Equatable {
    /// Schedules run, of `total` (this shard's).
    public var done: Int
    public var total: Int
    /// Schedules that broke the contract so far.
    public var failing: Int
    public var elapsedSeconds: Double
    /// Shrinking a clause's first failing schedule, when it is.
    public var shrinking: ClauseID?

    /// Schedules per second so far.
    public var rate: Double { elapsedSeconds > 0 ? Double(done) / elapsedSeconds : 0 }
}

/// Runs an exploration: a baseline in arrival order, then one run per schedule of this shard,
/// each judged against the contract; then, for each clause broken, its first failing schedule
/// shrunk to the fewest deviations that still break it.
///
/// How one run happens is `run`'s: start a proxy in exploration mode with the strategy given,
/// run the client, stop the proxy, return the record, trace and client outcome. A run that
/// throws stops the exploration: its report names the problem (exit status 2).
public final class Explorer: Sendable {
    public typealias RunOnce = @Sendable (_ strategy: any ExploreStrategy) async throws -> ExploreRunOutput

    public let options: ExploreOptions
    public let contract: Contract
    private let run: RunOnce

    public init(options: ExploreOptions, contract: Contract, run: @escaping RunOnce) {
        self.options = options
        self.contract = contract
        self.run = run
    }

    /// Runs the exploration. `progress` hears each schedule; `shouldStop` (Ctrl-C) ends it after
    /// the current run, with the runs so far in the report.
    public func explore(
        progress: @Sendable (ExploreProgress) -> Void = { _ in }, shouldStop: @Sendable () -> Bool = { false }
    ) async -> ExploreReport {
        let started = Date()
        var report = ExploreReport(
            strategy: options.replay.map { "\($0.strategy) (replayed)" } ?? options.strategy.description,
            seed: options.replay?.seed ?? options.seed, schedules: options.schedules, shard: options.shard,
            settleMilliseconds: Int(options.settings.settle.wholeMilliseconds),
            maxWaitMilliseconds: Int(options.settings.maxWait.wholeMilliseconds), contract: ContractSummary(contract),
            command: options.command, arguments: options.arguments, failOnClientError: options.failOnClientError)
        let indices = (0..<options.schedules).filter { options.shard?.contains($0) ?? true }
        var state = Progress(total: indices.count, started: started)
        do {
            let baseline = try await judged(
                index: -1, strategy: .fcfs, seed: 0, output: try await run(ChoiceList([])), keepAs: "baseline")
            report.baseline = baseline.run
            let horizon = max(baseline.decisions, 1)
            var search =
                options.strategy == .exhaustive && options.replay == nil
                ? ExhaustiveSearch(maxSteps: options.maxSteps) : nil
            var prefix: [ExploreChoice]? = search?.first
            for index in indices {
                if shouldStop() {
                    report.interrupted = true
                    break
                }
                let seed = options.seed(of: index)
                let strategy: any ExploreStrategy
                if let replay = options.replay {
                    strategy = ChoiceList(replay.choices)
                } else if search != nil {
                    guard let choices = prefix else { break }
                    strategy = ChoiceList(choices)
                } else {
                    strategy = options.strategy.make(seed: seed, horizon: horizon)
                }
                let output = try await run(strategy)
                let judgement = try await judged(
                    index: index, strategy: options.replay?.strategy ?? options.strategy,
                    seed: options.replay?.seed ?? (search == nil ? seed : 0), output: output,
                    keepAs: "schedule-\(index)")
                report.runs.append(judgement.run)
                record(judgement.run, in: &report)
                if search != nil {
                    prefix = search?.next(after: output.record, independent: Self.independence(of: judgement.trace))
                }
                state.done += 1
                state.failing += judgement.run.violated.isEmpty ? 0 : 1
                progress(state.snapshot)
                if options.stopAtFirstFailure, !judgement.run.violated.isEmpty { break }
            }
            if let search {
                report.cut = search.cut
                report.pruned = search.pruned
                report.complete = prefix == nil
            }
            report.elapsedSeconds = Date().timeIntervalSince(started)
            if options.replay == nil, !report.findings.isEmpty {
                let shrinking = Date()
                defer { report.shrinkSeconds = Date().timeIntervalSince(shrinking) }
                for position in report.findings.indices {
                    guard !shouldStop() else {
                        report.interrupted = true
                        break
                    }
                    state.shrinking = report.findings[position].clause
                    progress(state.snapshot)
                    try await shrink(&report.findings[position])
                }
            }
        } catch {
            report.problem = "\(error)"
            report.elapsedSeconds = Date().timeIntervalSince(started)
        }
        return report
    }

    // MARK: Judging a run

    private struct Judgement {
        var run: ExploreReport.Run
        var trace: Trace?
        var decisions: Int
    }

    private func judged(
        index: Int, strategy: StrategyKind, seed: UInt64, output: ExploreRunOutput, keepAs name: String
    ) async throws -> Judgement {
        var schedule = output.record.schedule(strategy, seed: seed)
        while schedule.choices.last == .step(0) { schedule.choices.removeLast() }
        var violated: [ClauseID] = []
        var trace: Trace?
        var checked: ContractReport?
        do {
            let read = try TraceReader.read(output.traceText)
            let report = ContractChecker.check(read, contract: contract)
            violated = report.brokenClauses
            trace = read
            checked = report
        } catch {
            throw ExploreFailure("the trace of run \(name) does not read: \(error)")
        }
        var run = ExploreReport.Run(
            index: index, schedule: schedule.description, interleaving: output.record.interleaving,
            decisions: output.record.decisions.count, violated: violated, diverged: output.record.divergences,
            client: output.client)
        let failing = !violated.isEmpty || (options.failOnClientError && output.client.failed)
        if failing, let directory = options.keepDirectory, let checked {
            (run.trace, run.html) = try keep(output.traceText, report: checked, as: name, in: directory)
        }
        return Judgement(run: run, trace: trace, decisions: output.record.decisions.count)
    }

    /// Writes a failing run's trace and its HTML report; returns their paths.
    private func keep(_ text: String, report: ContractReport, as name: String, in directory: String) throws -> (
        String, String
    ) {
        let folder = URL(fileURLWithPath: directory, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let trace = folder.appendingPathComponent("\(name).jsonl")
            let html = folder.appendingPathComponent("\(name).html")
            try Data(text.utf8).write(to: trace)
            try Data(ReportFormatter.html(report, traceName: trace.lastPathComponent).utf8).write(to: html)
            return (trace.path, html.path)
        } catch {
            throw ExploreFailure("cannot keep the trace of \(name) in \(directory): \(error.localizedDescription)")
        }
    }

    private func record(_ run: ExploreReport.Run, in report: inout ExploreReport) {
        for clause in run.violated {
            if let position = report.findings.firstIndex(where: { $0.clause == clause }) {
                report.findings[position].schedules += 1
            } else {
                report.findings.append(ExploreReport.Finding(clause: clause, schedules: 1, first: run))
            }
        }
    }

    // MARK: Shrinking

    /// ddmin over the first failing schedule's deviations, each candidate run and judged.
    private func shrink(_ finding: inout ExploreReport.Finding) async throws {
        let first = try Schedule(parsing: finding.first.schedule)
        var failures: [[Shrinker.Deviation]: ExploreReport.Run] = [:]
        var problem: (any Error)?
        let clause = finding.clause
        let deviations = Shrinker.deviations(of: first.choices)
        let result = await Shrinker.ddmin(deviations, budget: options.shrinkRuns) { candidate in
            guard problem == nil else { return false }
            do {
                let output = try await run(ChoiceList(Shrinker.choices(keeping: candidate, of: deviations)))
                let judgement = try await judged(
                    index: finding.first.index, strategy: first.strategy, seed: first.seed, output: output,
                    keepAs: "shrunk-\(clause.rawValue)")
                guard judgement.run.violated.contains(clause) else { return false }
                failures[candidate] = judgement.run
                return true
            } catch {
                problem = error
                return false
            }
        }
        if let problem { throw problem }
        let shrunk = failures[result.deviations] ?? finding.first
        finding.shrunk = shrunk
        finding.shrunkDeviations = (try? Schedule(parsing: shrunk.schedule))?.deviations
        finding.shrinkRuns = result.runs
    }

    // MARK: Independence

    /// Flows are independent when they share no client connection and no credential lineage
    /// (flows with no lineage in the trace are taken as dependent on every other).
    static func independence(of trace: Trace?) -> (UInt64, UInt64) -> Bool {
        var flows: [UInt64: (connection: UInt64?, lineage: String?)] = [:]
        for event in trace?.events ?? [] where event.kind == .requestReceived {
            guard let flow = event.flow?.rawValue else { continue }
            flows[flow] = (event.connection?.rawValue, event.string("lineage"))
        }
        return { first, second in
            guard let a = flows[first], let b = flows[second], let lineageA = a.lineage, let lineageB = b.lineage else {
                return false
            }
            return lineageA != lineageB && a.connection != b.connection
        }
    }

    // MARK: Progress

    private struct Progress {
        let total: Int
        let started: Date
        var done = 0
        var failing = 0
        var shrinking: ClauseID?

        var snapshot: ExploreProgress {
            ExploreProgress(
                done: done, total: total, failing: failing, elapsedSeconds: Date().timeIntervalSince(started),
                shrinking: shrinking)
        }
    }
}

/// An exploration that cannot go on: a run that could not start, a trace that does not read.
public struct ExploreFailure: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
