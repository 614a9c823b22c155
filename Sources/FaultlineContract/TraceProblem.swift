/// Something wrong with the trace itself rather than with the client: events missing, out of
/// order, or a secret written in clear. Reported apart from violations, because it says the
/// trace (or whatever produced it) cannot be fully trusted, not which clause the client broke.
public struct TraceProblem: Sendable, Equatable, Codable {
    /// What kind of problem.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// `seq` jumps: events are missing between two lines (or before the first).
        case seqGap = "seq-gap"
        /// `seq` does not increase (only possible for traces built in memory; the reader refuses it).
        case seqOrder = "seq-order"
        /// `mono_ns` goes backwards.
        case clockOrder = "clock-order"
        /// A value that must be a fingerprint (`fp:` and 16 hex digits) is not: a credential may be
        /// in clear. The message names the field, never the value.
        case rawSecret = "raw-secret"
        /// The header line is not one this checker knows (format version, fingerprint scheme).
        case header = "header"
    }

    /// What kind of problem.
    public var kind: Kind
    /// The event it was found in, when it is about one event.
    public var seq: UInt64?
    /// One sentence, safe to print: it never contains the suspected secret.
    public var message: String

    /// Makes a problem.
    public init(_ kind: Kind, seq: UInt64?, message: String) {
        self.kind = kind
        self.seq = seq
        self.message = message
    }
}
