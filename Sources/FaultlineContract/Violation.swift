/// One breach of one clause: what happened, in terms of the user's requests, and the trace
/// events that prove it.
public struct Violation: Sendable, Equatable, Codable {
    /// The clause broken.
    public var clause: ClauseID
    /// One sentence about the user's requests, e.g. `GET /v1/messages was sent at seq 41 with an
    /// access token of lineage L1, 3 events after L1's logout at seq 38`.
    public var summary: String
    /// `seq` of every witness event, ascending.
    public var witnesses: [UInt64]
    /// The lineage the violation is about, when there is one.
    public var lineage: String?
    /// Machine-readable facts (`"request_seq": "41"`, `"logout_seq": "38"`, `"key": "42"`),
    /// for tools that want more than the sentence.
    public var details: [String: String]
    /// The witness events with what a person needs to read them, in `seq` order.
    public var timeline: [WitnessEvent]

    /// Makes a violation; `witnesses` is taken from the timeline.
    public init(
        clause: ClauseID, summary: String, lineage: String? = nil, details: [String: String] = [:],
        timeline: [WitnessEvent]
    ) {
        let ordered = timeline.sorted { $0.seq < $1.seq }
        self.clause = clause
        self.summary = summary
        self.lineage = lineage
        self.details = details
        self.timeline = ordered
        var seqs: [UInt64] = []
        for event in ordered where seqs.last != event.seq { seqs.append(event.seq) }
        self.witnesses = seqs
    }
}
