/// Where clauses record what they find: keeps violations of enabled clauses up to a limit per
/// clause, builds their witness timelines, and fills in a request's status once its flow ends
/// (a request is often caught when it arrives, before it is answered).
struct ViolationLog {
    /// A witness as a clause hands it over: the event, and the flow whose status it should show.
    struct Witness {
        var event: WitnessEvent
        var flow: UInt64?
    }

    let enabled: Set<ClauseID>
    let limitPerClause: Int
    /// `mono_ns` of the trace's first event: timeline offsets count from it.
    var startMono: UInt64 = 0
    private(set) var violations: [Violation] = []
    /// Clauses the trace gave something to judge (a violation counts too).
    private(set) var exercised: Set<ClauseID> = []
    private(set) var omitted: [ClauseID: Int] = [:]
    private var counts: [ClauseID: Int] = [:]
    /// Flow → (violation index, seq of the witness that waits for the flow's status).
    private var pendingStatus: [UInt64: [(index: Int, seq: UInt64)]] = [:]
    /// Statuses of recently ended flows, for witnesses of requests already answered.
    private var endedStatus: [UInt64: Int] = [:]
    private var endedOrder: [UInt64] = []
    private var endedHead = 0
    static let rememberedStatuses = 4096

    init(enabled: Set<ClauseID>, limitPerClause: Int) {
        self.enabled = enabled
        self.limitPerClause = limitPerClause
    }

    func isEnabled(_ clause: ClauseID) -> Bool { enabled.contains(clause) }

    /// The trace met a case `clauses` judge (a refresh, a logout, a declared callback): a clause
    /// that never met one is reported as having had nothing to judge, never as held.
    mutating func exercise(_ clauses: ClauseID...) { exercised.formUnion(clauses) }

    /// Records a violation of an enabled clause (disabled ones are dropped here, so clauses need
    /// not check). Witnesses whose `status` is nil and that name a flow get it when the flow ends.
    mutating func record(
        _ clause: ClauseID, _ summary: String, lineage: String? = nil, details: [String: String] = [:],
        witnesses: [Witness]
    ) {
        guard enabled.contains(clause) else { return }
        exercised.insert(clause)
        let count = counts[clause, default: 0]
        counts[clause] = count + 1
        guard count < limitPerClause else {
            omitted[clause, default: 0] += 1
            return
        }
        var seen = Set<UInt64>()
        var events: [WitnessEvent] = []
        for var witness in witnesses.sorted(by: { $0.event.seq < $1.event.seq })
        where seen.insert(witness.event.seq).inserted {
            if witness.event.status == nil, let flow = witness.flow {
                if let status = endedStatus[flow] {
                    witness.event.status = status
                } else {
                    pendingStatus[flow, default: []].append((violations.count, witness.event.seq))
                }
            }
            events.append(witness.event)
        }
        violations.append(
            Violation(clause: clause, summary: summary, lineage: lineage, details: details, timeline: events))
    }

    /// A flow ended: witnesses waiting for its status get it.
    mutating func flowEnded(_ flow: UInt64, status: Int?) {
        if let status { remember(flow, status) }
        guard let waiting = pendingStatus.removeValue(forKey: flow), let status else { return }
        for (index, seq) in waiting {
            if let position = violations[index].timeline.firstIndex(where: { $0.seq == seq }) {
                violations[index].timeline[position].status = status
            }
        }
    }

    /// Keeps the last ``rememberedStatuses`` statuses (a ring, so memory stays flat).
    private mutating func remember(_ flow: UInt64, _ status: Int) {
        if endedOrder.count < Self.rememberedStatuses {
            endedOrder.append(flow)
        } else {
            endedStatus[endedOrder[endedHead]] = nil
            endedOrder[endedHead] = flow
            endedHead = (endedHead + 1) % Self.rememberedStatuses
        }
        endedStatus[flow] = status
    }

    // MARK: Witness builders

    /// The arrival of a client request.
    func request(
        _ request: ClientRequest, lineage: String?, note: String, marker: WitnessEvent.Marker = .context,
        status: Int? = nil
    ) -> Witness {
        Witness(
            event: WitnessEvent(
                seq: request.seq, offsetNanoseconds: offset(request.mono), event: "request.received", lineage: lineage,
                method: request.method, path: request.path, status: status, note: note, marker: marker),
            flow: request.flow)
    }

    /// The answer to a client request (or how it ended).
    func answer(
        _ request: ClientRequest, _ outcome: TracedOutcome, lineage: String?, note: String,
        marker: WitnessEvent.Marker = .context
    ) -> Witness {
        let event: String
        switch outcome.ending {
        case .answered: event = "response.delivered"
        case .aborted: event = "flow.aborted"
        case .failed: event = "upstream.error"
        case .unfinished: event = "trace.end"
        }
        return Witness(
            event: WitnessEvent(
                seq: outcome.endSeq, offsetNanoseconds: offset(outcome.endMono), event: event, lineage: lineage,
                method: request.method, path: request.path, status: outcome.status, note: note, marker: marker),
            flow: nil)
    }

    /// Any other event (a lineage step, a mark).
    func event(
        seq: UInt64, mono: UInt64, kind: String, lineage: String?, note: String, marker: WitnessEvent.Marker = .context
    ) -> Witness {
        Witness(
            event: WitnessEvent(
                seq: seq, offsetNanoseconds: offset(mono), event: kind, lineage: lineage, note: note, marker: marker),
            flow: nil)
    }

    /// The logout boundary of a lineage, as a witness.
    func boundary(_ boundary: LineageLedger.Boundary, lineage: String) -> Witness {
        if let request = boundary.request {
            return self.request(request, lineage: lineage, note: "logout sent (boundary)", marker: .boundary)
        }
        return event(
            seq: boundary.seq, mono: boundary.mono, kind: boundary.event, lineage: lineage,
            note: "logout forwarded (boundary)", marker: .boundary)
    }

    private func offset(_ mono: UInt64) -> UInt64 { mono >= startMono ? mono - startMono : 0 }
}
