public import FaultlineTestProxy
public import Foundation
import Synchronization

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Marks a proxy's trace, in process, with what the client did to its URLSession tasks: the
/// proxy sees a cancelled request only as a connection going away (or not at all, when the
/// request had not left yet), so the pipeline clauses need the client's word for it.
///
/// A cancelled task is marked with its ``cancelLabel`` (by default `cancel` followed by the
/// task's `taskDescription`, so `task.taskDescription = "job=7"` gives `cancel job=7`, what a
/// contract's `cancel: { mark: "cancel", key: "job" }` reads); a task that ended otherwise with
/// `task.completed`, its description, its status or error.
///
/// ```swift
/// let marks = TaskMarks(proxy: proxy)
/// let session = URLSession(configuration: .ephemeral, delegate: marks, delegateQueue: nil)
/// ```
public final class TaskMarks: NSObject, URLSessionTaskDelegate, Sendable {
    /// The proxy whose trace is marked.
    public let proxy: TestProxy
    /// The mark for a cancelled task; nil marks it `task.cancelled`.
    public let cancelLabel: @Sendable (URLSessionTask) -> String?

    /// Marks `proxy`'s trace; `cancelLabel` names a cancelled task's mark.
    public init(
        proxy: TestProxy,
        cancelLabel: @escaping @Sendable (URLSessionTask) -> String? = { $0.taskDescription.map { "cancel \($0)" } }
    ) {
        self.proxy = proxy
        self.cancelLabel = cancelLabel
    }

    /// Marks the task's end: cancelled, or completed (with its status or error).
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        var attributes = ["task": task.taskDescription ?? "task \(task.taskIdentifier)"]
        if TaskMarks.isCancellation(error) {
            proxy.mark(cancelLabel(task) ?? "task.cancelled", attributes)
            return
        }
        if let status = (task.response as? HTTPURLResponse)?.statusCode { attributes["status"] = String(status) }
        if let error { attributes["error"] = "\(error)" }
        proxy.mark("task.completed", attributes)
    }

    /// Whether `error` says the task or the Swift task running it was cancelled.
    static func isCancellation(_ error: (any Error)?) -> Bool {
        if error is CancellationError { return true }
        return (error as? URLError)?.code == .cancelled
    }
}

extension TestProxy {
    /// Runs an async URLSession call (any async work) and marks the trace in process: with
    /// `cancelLabel` (`cancel job=7`) the moment the Swift task running it is cancelled, or when
    /// the call ends with a cancellation error; with `task.completed` (and `task: name`) when it
    /// returns or fails otherwise. Returns or rethrows what the call did.
    ///
    /// ```swift
    /// let (data, _) = try await proxy.tracking("download 7", cancelLabel: "cancel job=7") {
    ///     try await session.data(for: request)
    /// }
    /// ```
    public func tracking<Value: Sendable>(
        _ name: String, cancelLabel: String? = nil, _ operation: @Sendable () async throws -> Value
    ) async throws -> Value {
        let marked = CancelMarkFlag()
        let cancelled: @Sendable () -> Void = { [self] in
            guard !marked.value.exchange(true, ordering: .relaxed) else { return }
            mark(cancelLabel ?? "task.cancelled", ["task": name])
        }
        do {
            let value = try await withTaskCancellationHandler(operation: operation, onCancel: cancelled)
            if !marked.value.load(ordering: .relaxed) { mark("task.completed", ["task": name]) }
            return value
        } catch {
            if TaskMarks.isCancellation(error) || Task.isCancelled {
                cancelled()
            } else if !marked.value.load(ordering: .relaxed) {
                mark("task.completed", ["task": name, "error": "\(error)"])
            }
            throw error
        }
    }
}

/// Whether a tracked call's cancel mark was written, shared by the cancellation handler (any
/// thread) and the call's own end, so the mark is written once.
private final class CancelMarkFlag: Sendable {
    let value = Atomic<Bool>(false)
}
