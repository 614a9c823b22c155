/// Where and why text is not valid JSON: what ``JSONParser`` throws.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Hashable {
        /// The text ends where `expected` (`"an object key"`, `"the closing '\"' of a string"`)
        /// was due: often a truncated line or body.
        case truncated(expected: String)
        /// Anything else, in one phrase (`expected ':', found '}'`).
        case invalid(String)
    }

    public let reason: Reason
    /// The 0-based byte offset of the offending byte (the text's length when it ends early).
    public let offset: Int
    /// 1-based.
    public let line: Int
    /// 1-based, counted in Unicode scalars.
    public let column: Int

    public init(_ reason: Reason, offset: Int, line: Int, column: Int) {
        self.reason = reason
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// The reason in words, without the position.
    public var message: String {
        switch reason {
        case .truncated(let expected): "the text ends where \(expected) was expected"
        case .invalid(let message): message
        }
    }

    /// `line:column: message`.
    public var description: String { "\(line):\(column): \(message)" }
}
