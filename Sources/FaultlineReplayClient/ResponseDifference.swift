/// One way a live answer differs from the recorded one.
public struct ResponseDifference: Sendable, Equatable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Codable {
        /// Another status code, or no answer where there was one (or the other way round).
        case status
        /// The body: a JSON value at `pointer`, or the body as a whole.
        case body
    }

    public var kind: Kind
    /// RFC 6901 pointer of a JSON difference (`""` for the whole document); nil for others.
    public var pointer: String?
    /// What the capture had, as the capture spells it (pseudonyms, never live values).
    public var recorded: String
    /// What the target answered, with live credentials left out.
    public var now: String

    public init(_ kind: Kind, pointer: String? = nil, recorded: String, now: String) {
        self.kind = kind
        self.pointer = pointer
        self.recorded = recorded
        self.now = now
    }

    /// `status 200 → 500`, `body /count: 1 → 2`, `body: 146 bytes → 12 bytes`.
    public var description: String {
        switch kind {
        case .status: "status \(recorded) → \(now)"
        case .body: "body\(pointer.map { $0.isEmpty ? "" : " " + $0 } ?? ""): \(recorded) → \(now)"
        }
    }
}
