/// Where a `TraceRecorder` writes its JSON Lines.
public enum TraceOutput: Sendable {
    /// A file, created or truncated when the recorder starts.
    case file(path: String)
    /// File descriptor 1; the recorder never closes it.
    case standardOutput
    /// Memory only, read back with `TraceRecorder.memoryContents()`; for tests and embedding.
    case memory
}

/// Why a `TraceRecorder` could not start.
public struct TraceRecorderError: Error, CustomStringConvertible, Equatable {
    /// What went wrong, with the path and the system's reason.
    public let message: String

    init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
