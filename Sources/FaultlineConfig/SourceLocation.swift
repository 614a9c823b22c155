/// Where a value came from in a configuration file, for error messages and the trace.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// 1-based.
    public var line: Int
    /// 1-based, counted in Unicode scalars.
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// The file or folder as a whole (line and column 0), for an error that has no position in
    /// it: it cannot be read at all.
    public static func whole(_ file: String) -> SourceLocation { SourceLocation(file: file, line: 0, column: 0) }

    /// `file:line:column`, or the bare path for ``whole(_:)``.
    public var description: String { line == 0 ? file : "\(file):\(line):\(column)" }
}
