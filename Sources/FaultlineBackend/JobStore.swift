/// The job pipeline behind `/jobs`: download → convert → write, a cancel mark, and a completion
/// callback receiver, so a test can see whether a client respects step dependencies and sends
/// its completion exactly once.
///
/// Theory of operation. A job's steps each remember whether they ran and how the last run ended.
/// Convert needs a successful download and write needs a successful convert: otherwise the step
/// is refused (`dependencyNotMet`, answered 409) and does not run, which is what a correct client
/// never provokes. A cancelled job refuses write (no commit after cancel); once written, a job
/// stays written even if cancelled later. A step fails when the request asks for it or when the
/// job was created to fail that step; a later successful attempt replaces the failure.
/// Completion calls are counted per job id *as given in the path*, even for ids never created,
/// because callbacks in tests often come from clients that never created the job here.
///
/// A plain value; `BackendService` keeps it behind its lock.
struct JobStore: Sendable {
    enum Step: String, CaseIterable, Sendable {
        case download
        case convert
        case write

        /// The step that must have succeeded first, if any.
        var dependency: Step? {
            switch self {
            case .download: nil
            case .convert: .download
            case .write: .convert
            }
        }
    }

    enum StepState: String, Sendable {
        case notRun = "not-run"
        case succeeded
        case failed
    }

    struct Job: Equatable, Sendable {
        let id: Int
        /// Steps that fail on every attempt (set at creation).
        let failingSteps: Set<Step>
        var states: [Step: StepState] = [:]
        var attempts: [Step: Int] = [:]
        var cancelled = false

        func state(_ step: Step) -> StepState { states[step] ?? .notRun }
    }

    enum StepOutcome: Equatable, Sendable {
        case succeeded(Job)
        case failed(Job)
        case dependencyNotMet(Step)
        case cancelled
        case unknownJob
    }

    private var jobs: [Job] = []
    private(set) var completionCalls: [String: Int] = [:]

    /// Number of jobs created.
    var jobCount: Int { jobs.count }

    /// Creates a job whose `failing` steps always fail; returns it (ids start at 1).
    mutating func create(failing: Set<Step> = []) -> Job {
        let job = Job(id: jobs.count + 1, failingSteps: failing)
        jobs.append(job)
        return job
    }

    /// The job with this id (as written in a path), or nil.
    func job(_ id: String) -> Job? {
        guard let index = Self.index(id, count: jobs.count) else { return nil }
        return jobs[index]
    }

    /// Runs `step` of job `id`; `forceFailure` makes this attempt fail (`?fail=1`).
    mutating func run(_ step: Step, job id: String, forceFailure: Bool) -> StepOutcome {
        guard let index = Self.index(id, count: jobs.count) else { return .unknownJob }
        if let dependency = step.dependency, jobs[index].state(dependency) != .succeeded {
            return .dependencyNotMet(dependency)
        }
        // A commit after a cancel mark must not happen; a commit before it stays.
        if step == .write, jobs[index].cancelled, jobs[index].state(.write) != .succeeded { return .cancelled }
        jobs[index].attempts[step, default: 0] += 1
        let fails = forceFailure || jobs[index].failingSteps.contains(step)
        jobs[index].states[step] = fails ? .failed : .succeeded
        return fails ? .failed(jobs[index]) : .succeeded(jobs[index])
    }

    /// Marks job `id` cancelled; returns it, or nil when unknown.
    mutating func cancel(job id: String) -> Job? {
        guard let index = Self.index(id, count: jobs.count) else { return nil }
        jobs[index].cancelled = true
        return jobs[index]
    }

    /// Counts one completion callback for `id`; returns the number of calls so far.
    mutating func complete(job id: String) -> Int {
        completionCalls[id, default: 0] += 1
        return completionCalls[id, default: 0]
    }

    /// `"7"` → index 6 when job 7 exists. Only plain decimal digits count, so "07" or "+7" are
    /// unknown jobs rather than aliases.
    private static func index(_ id: String, count: Int) -> Int? {
        guard !id.isEmpty, id.utf8.count <= 9, id.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            id.utf8.first != 0x30, let number = Int(id), number <= count
        else { return nil }
        return number - 1
    }
}
