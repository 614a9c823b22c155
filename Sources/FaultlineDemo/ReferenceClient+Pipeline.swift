import FaultlineCore
import Foundation
import Synchronization

/// A cancellation flag a job checks before each step that commits (the operation-cancellation
/// article's `isCancelled`: a request to stop, honoured at a safe point).
public final class JobCancellation: Sendable {
    private let cancelled = Atomic<Bool>(false)
    public init() {}
    public func cancel() { cancelled.store(true, ordering: .sequentiallyConsistent) }
    public var isCancelled: Bool { cancelled.load(ordering: .sequentiallyConsistent) }
}

/// How each step of a job ended (the article's four final states).
public enum StepOutcome: String, Sendable {
    case succeeded, failed, skipped, cancelled
}

extension ReferenceClient.Account {
    /// download → convert → write, then the completion callback once. A failed dependency skips
    /// the steps after it; a cancelled job does not write; the callback reports the final state.
    /// `beforeWrite` runs between convert and write (the demo cancels there).
    public func runJob(
        cancellation: JobCancellation = JobCancellation(), beforeWrite: @Sendable (Int) async throws -> Void = { _ in }
    ) async throws -> (job: Int, steps: [String: StepOutcome]) {
        let created = try await http.send("POST", "/jobs", bearer: await auth.accessToken)
        guard let job = created.json?["job"]?.intValue.map(Int.init) else {
            throw DemoHTTPClient.Failure(description: "no job id")
        }
        var steps: [String: StepOutcome] = [:]
        steps["download"] = try await step("download", job)
        if steps["download"] == .succeeded || flaws.contains(.convertAfterFailedDownload) {
            steps["convert"] = try await step("convert", job)
        } else {
            steps["convert"] = .skipped
        }
        try await beforeWrite(job)
        if steps["convert"] != .succeeded && !flaws.contains(.convertAfterFailedDownload) {
            steps["write"] = .skipped
        } else if cancellation.isCancelled && !flaws.contains(.writeAfterCancel) {
            steps["write"] = .cancelled
        } else {
            steps["write"] = try await step("write", job)
        }
        let completions = flaws.contains(.duplicateCompletion) ? 2 : 1
        for _ in 0..<completions {
            _ = try await http.send("POST", "/jobs/\(job)/complete", bearer: await auth.accessToken)
        }
        return (job, steps)
    }

    private func step(_ name: String, _ job: Int) async throws -> StepOutcome {
        let status = try await http.send("POST", "/jobs/\(job)/\(name)", bearer: await auth.accessToken).status
        return (200..<300).contains(status) ? .succeeded : .failed
    }
}
