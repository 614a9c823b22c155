public import FaultlineCapture
public import FaultlineCore
public import FaultlineFlow
import FaultlineHTTP1
public import FaultlineTrace
import Synchronization

/// Answers a server's flows from a capture (`faultline replay serve`): the `ReplayResponder` the
/// server's replayed upstreams ask.
///
/// Theory of operation:
/// - **Matching.** Each recorded exchange that an upstream answered is reduced to a
///   `RequestShape` once; a live request is reduced the same way after every fresh credential in
///   it is read back as the recorded one (`TokenMint`). The recorded requests whose shape equals
///   it on the configured parts are its candidates, in recorded order: the first one not used yet
///   answers (VCR's cassette order: the n-th identical request gets the n-th response). When all
///   are used, `--repeat` decides, except that a refresh whose recorded answers are all spent gets
///   the recorded rejection of a refresh (a rotated refresh token is not accepted twice), or
///   RFC 6749 §5.2's `invalid_grant`.
/// - **Credentials.** Secrets that recorded responses issued are handed out as fresh random
///   values, one per recorded value for the whole run, so a client's auth code runs unchanged and
///   no real secret is needed (`IssuedSecrets`).
/// - **Order.** With `--order recorded`, an answer waits until every recorded step before its
///   delivery has happened in this run (`RecordedOrder`), or until its deadline, when it goes
///   anyway and the trace says what was missing (`replay.diverged`).
/// - **Nothing else.** A request nothing matches gets a 502 naming the nearest recorded request,
///   or, with `--unmatched forward`, goes to the network; otherwise nothing does.
///
/// Thread-safe: one lock guards the cursors, the mint and the order, and no callback runs under it.
public final class ReplaySource: ReplayResponder {
    public let capture: Capture
    public let settings: ReplaySettings
    public let upstreamName = "replay"
    public var allowsNetwork: Bool { settings.unmatched == .forward }

    private let issued: IssuedSecrets
    private let recorded: [Recorded]
    /// Recorded indices by `RequestShape.route`, when the match includes every route part.
    private let routes: [String: [Int]]?
    private let notice: @Sendable (String) -> Void
    private let state: Mutex<State>

    struct Recorded: Sendable {
        let exchange: CapturedExchange
        let request: CapturedRequest
        let response: CapturedResponse
        let shape: RequestShape
        /// A 2xx answer that issues a refresh token: a login or a refresh.
        let issuesRefresh: Bool
        /// The request presents a refresh token a recorded response issued: a refresh.
        let presentsRefresh: Bool

        var isSuccessfulRefresh: Bool { presentsRefresh && issuesRefresh }
        var isRejectedRefresh: Bool { presentsRefresh && !(200..<300).contains(response.status) }
    }

    private struct State: ~Copyable {
        var mint = TokenMint()
        var uses: [Int]
        var cycles: [String: Int] = [:]
        var order: RecordedOrder?
        /// Live flow → the recorded flow it was matched to (ordered replay).
        var assignments: [FlowID: Int64] = [:]
        var parked: [Parked] = []
        /// Fresh refresh tokens a successful refresh has rotated: presenting one again is refused.
        var spentRefreshTokens: Set<String> = []
    }

    private struct Parked {
        let flow: FlowID
        let recordedFlow: Int64
        let answer: @Sendable (ReplayAnswer) -> Void
        let response: ReplayAnswer
        let since: MonotonicInstant
    }

    /// `notice` gets one line for each request the recording does not answer and each divergence
    /// from the recorded order (the command line prints them on standard error).
    public init(capture: Capture, settings: ReplaySettings, notice: @escaping @Sendable (String) -> Void = { _ in }) {
        self.capture = capture
        self.settings = settings
        self.notice = notice
        let issued = IssuedSecrets(capture: capture, policy: settings.secrets)
        self.issued = issued
        let refreshTokens = issued.values.filter { capture.credentialKind(of: $0) == "refresh" }
        let recorded = capture.answeredExchanges.map { exchange in
            let request = exchange.upstreamRequest!
            let response = exchange.response!
            let keptBody = request.body.flatMap { $0.truncated ? nil : $0.bytes } ?? (capture.hasBodies ? [] : nil)
            let requestText = Self.text(of: request)
            return Recorded(
                exchange: exchange, request: request, response: response,
                shape: RequestShape(
                    method: request.method, url: request.url, headers: request.headers, body: keptBody, settings: settings,
                    issued: issued),
                issuesRefresh: (200..<300).contains(response.status)
                    && (issued.byFlow[exchange.flow] ?? []).contains { refreshTokens.contains($0) },
                presentsRefresh: refreshTokens.contains { requestText.contains($0) })
        }
        self.recorded = recorded
        let routeParts: [ReplaySettings.MatchPart] = [.method, .scheme, .host, .port, .path]
        if routeParts.allSatisfy(settings.match.contains) {
            routes = Dictionary(grouping: recorded.indices, by: { recorded[$0].shape.route })
        } else {
            routes = nil
        }
        state = Mutex(
            State(uses: Array(repeating: 0, count: recorded.count), order: settings.order == .recorded ? RecordedOrder(capture: capture) : nil))
    }

    /// Recorded exchanges this source can answer with.
    public var replayableCount: Int { recorded.count }

    // MARK: ReplayResponder

    public func respond(to request: ReplayRequest, answer: @escaping @Sendable (ReplayAnswer) -> Void) -> Duration? {
        var released: [(Parked, [ReplayTraceEvent])] = []
        var lines: [String] = []
        let (immediate, waits) = state.withLock { state -> (ReplayAnswer?, Bool) in
            let shape = liveShape(request, &state)
            let refreshTokens = state.mint.presented(in: Self.text(of: request))
                .filter { capture.credentialKind(of: $0.recorded) == "refresh" }.map(\.fresh)
            guard let choice = choose(shape, presentingRefresh: refreshTokens, &state) else {
                let (answer, line) = unmatched(request, shape, state.order)
                lines.append(line)
                return (answer, false)
            }
            var events = choice.events
            let response = makeResponse(choice.recorded, generation: choice.newGeneration, &state, events: &events)
            guard var order = state.order else { return (response(events), false) }
            let recordedFlow = recorded[choice.recorded].exchange.flow
            state.assignments[request.flow] = recordedFlow
            order.received(recordedFlow)
            state.order = order
            released = releasable(&state)
            if order.missing(before: recordedFlow).isEmpty { return (response(events), false) }
            state.parked.append(
                Parked(flow: request.flow, recordedFlow: recordedFlow, answer: answer, response: response(events), since: .now()))
            return (nil, true)
        }
        for line in lines { notice(line) }
        if let immediate { answer(immediate) }
        deliver(released)
        return waits ? settings.orderTimeout : nil
    }

    public func expire(_ flow: FlowID) {
        let expired = state.withLock { state -> (Parked, [ReplayTraceEvent], String)? in
            guard let index = state.parked.firstIndex(where: { $0.flow == flow }), let order = state.order else { return nil }
            let parked = state.parked.remove(at: index)
            let missing = order.missing(before: parked.recordedFlow)
            let reason = "waited \(settings.orderTimeout.inSeconds)s for the recorded order; still missing: "
                + missing.prefix(5).map(\.summary).joined(separator: "; ")
            let event = ReplayTraceEvent(
                .replayDiverged,
                [
                    .int("recorded_flow", parked.recordedFlow), .string("reason", reason),
                    .strings("missing", missing.map(\.summary)),
                    .string("reached", order.reachedThrough?.summary ?? "nothing yet"),
                ])
            return (parked, [event], "faultline replay: diverged from the recorded order at recorded flow \(parked.recordedFlow): \(reason)")
        }
        guard let (parked, events, line) = expired else { return }
        notice(line)
        deliver([(parked, events)])
    }

    public func finished(_ flow: FlowID, delivered: Bool) {
        let released = state.withLock { state -> [(Parked, [ReplayTraceEvent])] in
            guard var order = state.order, let recordedFlow = state.assignments.removeValue(forKey: flow) else { return [] }
            state.parked.removeAll { $0.flow == flow }
            if delivered { order.delivered(recordedFlow) }
            state.order = order
            return releasable(&state)
        }
        deliver(released)
    }

    /// A mark was written to this run's trace: for `--order recorded`, a recorded step.
    public func marked(_ label: String) {
        let released = state.withLock { state -> [(Parked, [ReplayTraceEvent])] in
            guard var order = state.order else { return [] }
            order.mark(label)
            state.order = order
            return releasable(&state)
        }
        deliver(released)
    }

    // MARK: Matching

    private func liveShape(_ request: ReplayRequest, _ state: inout State) -> RequestShape {
        let mint = state.mint
        func recordedText(_ text: String) -> String {
            mint.recordedText(Array(text.utf8)).map { String(decoding: $0, as: UTF8.self) } ?? text
        }
        let target = recordedText(request.head.target)
        let pathAndQuery = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var path = String(pathAndQuery[0])
        if !request.endpoint.pathPrefix.isEmpty, path.hasPrefix(request.endpoint.pathPrefix) {
            path = String(path.dropFirst(request.endpoint.pathPrefix.count))
        }
        let url = RecordedURL(
            scheme: request.endpoint.scheme, host: request.endpoint.host, port: request.endpoint.port, path: path,
            query: pathAndQuery.count > 1 ? String(pathAndQuery[1]) : nil)
        let headers = HTTPHeaders(request.head.headers.map { ($0.name, recordedText($0.value)) })
        let body = mint.recordedText(request.body) ?? request.body
        return RequestShape(
            method: request.head.method, url: url, headers: headers, body: body, settings: settings, issued: issued)
    }

    private struct Choice {
        /// The recorded exchange whose answer goes out; -1 for RFC 6749's `invalid_grant`.
        let recorded: Int
        let events: [ReplayTraceEvent]
        /// Issue new fresh tokens rather than the ones this run already handed out (a refresh
        /// the recording has no answer for, answered as its recorded refresh was).
        var newGeneration = false
    }

    /// The recorded exchange that answers `shape`, or nil when none does. `presentingRefresh`:
    /// the fresh refresh tokens the request presents (a refresh rotates them).
    private func choose(_ shape: RequestShape, presentingRefresh: [String], _ state: inout State) -> Choice? {
        let pool = routes.map { $0[shape.route] ?? [] } ?? Array(recorded.indices)
        var candidates = pool.filter { shape.matches(recorded[$0].shape, parts: settings.match) }
        if candidates.allSatisfy({ state.uses[$0] > 0 }) {
            // Nothing unused matches exactly: one that only lacks a credential the recording sent may.
            let loose = pool.filter { state.uses[$0] == 0 && shape.matches(recorded[$0].shape, parts: settings.match, loosely: true) }
            if !loose.isEmpty { candidates = loose }
        }
        if let fresh = candidates.first(where: { state.uses[$0] == 0 }) {
            state.uses[fresh] += 1
            if recorded[fresh].isSuccessfulRefresh { state.spentRefreshTokens.formUnion(presentingRefresh) }
            return Choice(recorded: fresh, events: [matchedEvent(fresh, use: 1, repeated: nil)])
        }
        if presentingRefresh.contains(where: state.spentRefreshTokens.contains) {
            // A rotated refresh token presented again: the recorded backend refused that (RFC 6749
            // §10.4, refresh token rotation), so the replay does too.
            let rejection = pool.first { recorded[$0].isRejectedRefresh } ?? recorded.indices.first { recorded[$0].isRejectedRefresh }
            var fields: [TraceField] = [.string("reason", "the refresh token was already rotated by an earlier refresh")]
            if let rejection {
                fields.append(.int("answered_with_flow", recorded[rejection].exchange.flow))
            } else {
                fields.append(.string("answer", "invalid_grant (RFC 6749 section 5.2): the recording has no rejected refresh"))
            }
            return Choice(recorded: rejection ?? -1, events: [ReplayTraceEvent(.replayRotated, fields)])
        }
        if !candidates.isEmpty {
            let chosen: Int
            switch settings.repeatPolicy {
            case .none: return nil
            case .last: chosen = candidates[candidates.count - 1]
            case .cycle:
                let key = candidates.map(String.init).joined(separator: ",")
                let count = state.cycles[key, default: 0]
                state.cycles[key] = count + 1
                chosen = candidates[count % candidates.count]
            }
            state.uses[chosen] += 1
            return Choice(recorded: chosen, events: [matchedEvent(chosen, use: state.uses[chosen], repeated: settings.repeatPolicy)])
        }
        if !presentingRefresh.isEmpty, let template = pool.last(where: { recorded[$0].isSuccessfulRefresh }) {
            // A refresh with a token this run issued and the recording never presented (a client
            // that refreshes more often than the recorded one): the backend would rotate, so the
            // replay answers as the recorded refresh did, with new tokens.
            state.spentRefreshTokens.formUnion(presentingRefresh)
            state.uses[template] += 1
            return Choice(
                recorded: template,
                events: [ReplayTraceEvent(.replayRotated, [.int("recorded_flow", recorded[template].exchange.flow), .string("reason", "a refresh the recording has no answer for: answered as recorded flow \(recorded[template].exchange.flow) was, with new tokens")])],
                newGeneration: true)
        }
        return nil
    }

    private func matchedEvent(_ index: Int, use: Int, repeated: ReplaySettings.Repeat?) -> ReplayTraceEvent {
        let entry = recorded[index]
        var fields: [TraceField] = [
            .int("recorded_flow", entry.exchange.flow), .int("recorded_seq", Int64(entry.exchange.received.seq)),
            .int("status", entry.response.status), .int("use", use),
        ]
        if let repeated { fields.append(.string("repeat", repeated.rawValue)) }
        if entry.response.body?.truncated == true { fields.append(.bool("truncated", true)) }
        return ReplayTraceEvent(.replayMatched, fields)
    }

    /// A request's bytes where a credential can travel: target, field values and body.
    private static func text(of request: CapturedRequest) -> String {
        ([request.url.target] + request.headers.map(\.value)).joined(separator: "\n") + "\n"
            + String(decoding: request.body?.bytes ?? [], as: UTF8.self)
    }

    private static func text(of request: ReplayRequest) -> [UInt8] {
        Array(([request.head.target] + request.head.headers.map(\.value)).joined(separator: "\n").utf8) + [0x0A] + request.body
    }

    // MARK: Answers

    /// The recorded response of `index` with fresh credentials in place of the issued ones; the
    /// result still takes the trace events (an ordered answer adds its own before it goes).
    private func makeResponse(
        _ index: Int, generation: Bool, _ state: inout State, events: inout [ReplayTraceEvent]
    ) -> ([ReplayTraceEvent]) -> ReplayAnswer {
        guard index >= 0 else {
            let head = HTTPResponseHead(
                status: 400, reason: "Bad Request",
                headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")])
            let body = Array(#"{"error":"invalid_grant","error_description":"the refresh token was already used"}"#.utf8)
            return { .response(head, body: body, trailers: nil, trace: $0) }
        }
        let entry = recorded[index]
        let secrets = issued.byFlow[entry.exchange.flow] ?? []
        var minted: [String: String] = [:]
        func fresh(_ bytes: [UInt8]) -> [UInt8] {
            CredentialSubstitution.replace(secrets, in: bytes) { value in
                guard generation else { return state.mint.fresh(for: value) }
                if let known = minted[value] { return known }
                let token = state.mint.nextGeneration(for: value)
                minted[value] = token
                return token
            }
        }
        var head = HTTPResponseHead(status: entry.response.status, reason: entry.response.reason)
        // Framing and connection fields go: the replayed upstream frames its own answer.
        for field in entry.response.headers {
            head.headers.add(name: field.name, value: String(decoding: fresh(Array(field.value.utf8)), as: UTF8.self))
        }
        let body = fresh(entry.response.body?.bytes ?? [])
        let trailers = entry.response.trailers
        return { .response(head, body: body, trailers: trailers, trace: $0) }
    }

    /// Nothing recorded answers the request: the trace and the client learn what came nearest.
    private func unmatched(_ request: ReplayRequest, _ shape: RequestShape, _ order: RecordedOrder?) -> (ReplayAnswer, String) {
        let (nearest, differences) = nearestRecorded(to: shape)
        var reason = "the recording has no \(shape.method) \(shape.url)"
        if let nearest {
            let exchange = recorded[nearest].exchange
            reason += "; nearest: \(recorded[nearest].request.method) \(recorded[nearest].request.url) (recorded flow \(exchange.flow), seq \(exchange.received.seq))"
            reason += differences.isEmpty
                ? ", whose recorded answers are all used (--repeat none)" : ", which differs in " + differences.joined(separator: "; ")
        }
        var fields: [TraceField] = [.string("method", shape.method), .target("url", shape.url.description), .string("reason", reason)]
        if let nearest { fields.append(.int("nearest_flow", recorded[nearest].exchange.flow)) }
        if let order {
            let next = order.pending(limit: 3).map(\.summary)
            reason += "; the run had reached \(order.reachedThrough?.summary ?? "the start of the recording"), which goes on with: "
                + (next.isEmpty ? "nothing" : next.joined(separator: "; "))
            fields.append(.strings("recorded_next", next))
        }
        var events = [ReplayTraceEvent(.replayUnmatched, fields)]
        if order != nil { events.append(ReplayTraceEvent(.replayDiverged, [.string("reason", reason)])) }
        let line = "faultline replay: unmatched: \(reason)"
        if settings.unmatched == .forward { return (.forward(trace: events), line + " (sent on to the network: --unmatched forward)") }
        return (.unavailable(UpstreamFailure(code: "replay-unmatched", status: 502, description: reason), trace: events), line)
    }

    /// The recorded request with the fewest differing parts (a different route weighs most).
    private func nearestRecorded(to shape: RequestShape) -> (Int?, [String]) {
        var best: (index: Int, score: Int, differences: [String])?
        let all = ReplaySettings.MatchPart.defaults + settings.match.filter { !ReplaySettings.MatchPart.defaults.contains($0) }
        for index in recorded.indices {
            let differences = shape.differences(from: recorded[index].shape, parts: all)
            let routeDifferences = shape.differences(from: recorded[index].shape, parts: [.method, .scheme, .host, .port, .path]).count
            let score = routeDifferences * 10 + differences.count
            if best == nil || score < best!.score { best = (index, score, differences) }
        }
        guard let best else { return (nil, []) }
        return (best.index, best.differences)
    }

    // MARK: Order

    /// Parked answers whose recorded predecessors have all happened, removed from the parking lot.
    private func releasable(_ state: inout State) -> [(Parked, [ReplayTraceEvent])] {
        guard let order = state.order else { return [] }
        var ready: [(Parked, [ReplayTraceEvent])] = []
        state.parked.removeAll { parked in
            guard order.missing(before: parked.recordedFlow).isEmpty else { return false }
            let waited = parked.since.duration(to: .now())
            ready.append((parked, [ReplayTraceEvent(.replayReleased, [.int("recorded_flow", parked.recordedFlow), .double("waited_s", waited.inSeconds)])]))
            return true
        }
        return ready
    }

    private func deliver(_ released: [(Parked, [ReplayTraceEvent])]) {
        for (parked, events) in released {
            switch parked.response {
            case .response(let head, let body, let trailers, let trace):
                parked.answer(.response(head, body: body, trailers: trailers, trace: trace + events))
            case .unavailable(let failure, let trace):
                parked.answer(.unavailable(failure, trace: trace + events))
            case .forward(let trace):
                parked.answer(.forward(trace: trace + events))
            }
        }
    }
}

extension TraceEventKind {
    /// A request a replay answered from the recording: which recorded flow, which use of it.
    public static let replayMatched: TraceEventKind = "replay.matched"
    /// A request nothing recorded answers, with the nearest recorded request and why it differs.
    public static let replayUnmatched: TraceEventKind = "replay.unmatched"
    /// A refresh presenting a rotated refresh token got the recorded rejection.
    public static let replayRotated: TraceEventKind = "replay.rotated"
    /// An answer held for the recorded order went out.
    public static let replayReleased: TraceEventKind = "replay.released"
    /// The run left the recorded order: where, and what was missing.
    public static let replayDiverged: TraceEventKind = "replay.diverged"
}
