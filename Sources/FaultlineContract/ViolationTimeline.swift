/// One violation as a picture's model: a swimlane per lineage (events of no lineage last), the
/// requests as bars from received to delivered, and the other witnesses as marks, each at the
/// time of its events and labelled by their `seq`. ``SVGTimelineRenderer`` draws it; nothing here
/// knows about SVG.
///
/// It carries only what the report carries (methods, paths, statuses, lineage names, notes):
/// no header, no credential.
public struct ViolationTimeline: Sendable, Equatable {
    /// A request, from its arrival to its end.
    public struct Bar: Sendable, Equatable {
        /// `seq` of `request.received`.
        public var startSeq: UInt64
        /// `seq` of the event that ended it; nil when neither the witnesses nor the trace say.
        public var endSeq: UInt64?
        /// Nanoseconds since the trace's first event, at arrival.
        public var startOffsetNanoseconds: UInt64
        /// Nanoseconds since the trace's first event, at the end.
        public var endOffsetNanoseconds: UInt64?
        /// `GET /v1/messages`.
        public var request: String
        /// The status the client was given.
        public var status: Int?
        /// The witness's part in the story (`stale refresh`, `logout sent (boundary)`).
        public var note: String
        /// The request that broke the clause.
        public var isOffending: Bool
        /// A refresh (its note says so).
        public var isRefresh: Bool
        /// The logout that is the boundary.
        public var isBoundary: Bool
    }

    /// A witness that is not drawn as a bar, or a bar's start that needs a line of its own.
    public struct Mark: Sendable, Equatable {
        /// How a mark is drawn.
        public enum Kind: String, Sendable {
            /// The logout boundary (or a cancel mark, a failed dependency): a line across every lane.
            case boundary
            /// A refresh completed or started.
            case refresh
            /// The event that broke the clause.
            case offending
            /// Any other witness.
            case event
        }

        /// `seq` of the event.
        public var seq: UInt64
        /// Nanoseconds since the trace's first event.
        public var offsetNanoseconds: UInt64
        /// How it is drawn.
        public var kind: Kind
        /// The trace event kind (`lineage.logout`, `mark`).
        public var event: String
        /// The witness's note.
        public var note: String
    }

    /// One lineage's lane.
    public struct Lane: Sendable, Equatable {
        /// The lineage (`L1`); nil for the lane of events of no lineage.
        public var lineage: String?
        /// Its bars, by `startSeq`.
        public var bars: [Bar]
        /// Its marks, by `seq`.
        public var marks: [Mark]
        /// `lineage L1` or `other events`.
        public var title: String { lineage.map { "lineage \($0)" } ?? "other events" }
    }

    /// The clause broken.
    public var clause: ClauseID
    /// The violation's sentence.
    public var summary: String
    /// The violation's witness events, as the reports list them.
    public var events: [WitnessEvent]
    /// The lanes, in order of first appearance (no-lineage lane last).
    public var lanes: [Lane]
    /// Every `seq` drawn, ascending: the picture labels each one.
    public var columns: [UInt64]

    /// The model of `violation`. `spans` (from ``RequestSpanCollector``, by `request.received`
    /// seq) ends bars whose answer is not a witness; without them a request's bar ends at the
    /// next answer witness of the same request in its lane, or is left open.
    public init(violation: Violation, spans: [UInt64: RequestSpan] = [:]) {
        clause = violation.clause
        summary = violation.summary
        events = violation.timeline
        var lanes: [Lane] = []
        func laneIndex(_ lineage: String?) -> Int {
            if let index = lanes.firstIndex(where: { $0.lineage == lineage }) { return index }
            lanes.append(Lane(lineage: lineage, bars: [], marks: []))
            return lanes.count - 1
        }
        for event in violation.timeline.sorted(by: { $0.seq < $1.seq }) {
            let lane = laneIndex(event.lineage)
            let refresh = event.note.lowercased().contains("refresh") || event.event == "lineage.refresh"
            if event.event == "request.received" {
                let span = spans[event.seq]
                lanes[lane].bars.append(
                    Bar(
                        startSeq: event.seq, endSeq: span?.endSeq, startOffsetNanoseconds: event.offsetNanoseconds,
                        endOffsetNanoseconds: span?.endOffsetNanoseconds,
                        request: Self.request(event), status: event.status ?? span?.status, note: event.note,
                        isOffending: event.marker == .offending, isRefresh: refresh,
                        isBoundary: event.marker == .boundary))
                if event.marker == .boundary { lanes[lane].marks.append(Mark(event, kind: .boundary)) }
                continue
            }
            if Self.answers.contains(event.event), event.method != nil,
                let open = lanes[lane].bars.lastIndex(where: {
                    $0.request == Self.request(event) && ($0.endSeq == nil || $0.endSeq == event.seq)
                })
            {
                lanes[lane].bars[open].endSeq = event.seq
                lanes[lane].bars[open].endOffsetNanoseconds = event.offsetNanoseconds
                if let status = event.status { lanes[lane].bars[open].status = status }
                if event.marker == .offending { lanes[lane].bars[open].isOffending = true }
                // A failed dependency's answer is the boundary: its line crosses every lane.
                if event.marker == .boundary { lanes[lane].marks.append(Mark(event, kind: .boundary)) }
                continue
            }
            let kind: Mark.Kind =
                switch event.marker {
                case .boundary: .boundary
                case .offending: .offending
                case .context: refresh ? .refresh : .event
                }
            lanes[lane].marks.append(Mark(event, kind: kind))
        }
        lanes.sort { ($0.lineage == nil ? 1 : 0) < ($1.lineage == nil ? 1 : 0) }
        self.lanes = lanes
        var seqs = Set<UInt64>()
        for lane in lanes {
            for bar in lane.bars {
                seqs.insert(bar.startSeq)
                if let end = bar.endSeq { seqs.insert(end) }
            }
            for mark in lane.marks { seqs.insert(mark.seq) }
        }
        columns = seqs.sorted()
    }

    /// Nanoseconds since the trace's first event of every seq drawn (every one of ``columns``):
    /// where the picture puts it on its time axis. A bar's end with no time of its own (an
    /// answer named by seq only) is drawn at its start.
    public var offsets: [UInt64: UInt64] {
        var offsets: [UInt64: UInt64] = [:]
        for lane in lanes {
            for bar in lane.bars {
                offsets[bar.startSeq] = bar.startOffsetNanoseconds
                if let end = bar.endSeq { offsets[end] = bar.endOffsetNanoseconds ?? bar.startOffsetNanoseconds }
            }
            for mark in lane.marks { offsets[mark.seq] = mark.offsetNanoseconds }
        }
        return offsets
    }

    /// The events that end a request.
    static let answers: Set<String> = ["response.delivered", "flow.aborted", "upstream.error", "trace.end"]

    static func request(_ event: WitnessEvent) -> String {
        guard let method = event.method else { return event.event }
        return method + " " + (event.path ?? "")
    }
}

extension ViolationTimeline.Mark {
    /// The mark of a witness, drawn as `kind` (an extension, so the memberwise initializer stays).
    init(_ event: WitnessEvent, kind: Kind) {
        self.init(
            seq: event.seq, offsetNanoseconds: event.offsetNanoseconds, kind: kind, event: event.event,
            note: event.note)
    }
}
