/// A trace line that cannot be read: its 1-based line number and what is wrong with it.
public struct TraceReadError: Error, CustomStringConvertible, Equatable {
    /// 1-based line number in the trace (line 1 is the header).
    public let line: Int
    /// What is wrong, e.g. `column 12: expected ',' or '}'` or `"seq" is missing`.
    public let message: String

    /// Makes an error for `line`.
    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    /// `line 7: <message>`.
    public var description: String { "line \(line): \(message)" }
}
