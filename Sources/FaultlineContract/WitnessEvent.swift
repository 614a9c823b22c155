/// One event a violation points at, with what a person needs to read it without the trace:
/// when it happened, which lineage, which request and answer, and its part in the story.
///
/// Reports group these per lineage into a compact timeline; the JSON report carries them as is.
public struct WitnessEvent: Sendable, Equatable, Codable {
    /// How the text report marks an event in the timeline.
    public enum Marker: String, Sendable, Codable {
        /// An event that explains the violation (a login, a 401, a refresh).
        case context
        /// The boundary the violation crosses (a logout, a cancel mark, a failed dependency).
        case boundary
        /// The request (or refresh) that broke the clause.
        case offending
    }

    /// `seq` of the trace line.
    public var seq: UInt64
    /// Nanoseconds since the trace's first event (`mono_ns` difference).
    public var offsetNanoseconds: UInt64
    /// The trace event kind (`request.received`, `lineage.logout`, `mark`, ...).
    public var event: String
    /// The credential lineage the event belongs to (`L1`), when known.
    public var lineage: String?
    /// The request method, for events of a request.
    public var method: String?
    /// The request path (no query), for events of a request.
    public var path: String?
    /// The status the client was given for that request, when it had one.
    public var status: Int?
    /// The event's part in the story, a few words: `logout sent`, `refresh started`.
    public var note: String
    /// How the timeline marks it.
    public var marker: Marker

    /// Makes a witness; the checker fills these in as it finds a violation.
    public init(
        seq: UInt64, offsetNanoseconds: UInt64, event: String, lineage: String? = nil, method: String? = nil,
        path: String? = nil, status: Int? = nil, note: String, marker: Marker = .context
    ) {
        self.seq = seq
        self.offsetNanoseconds = offsetNanoseconds
        self.event = event
        self.lineage = lineage
        self.method = method
        self.path = path
        self.status = status
        self.note = note
        self.marker = marker
    }
}
