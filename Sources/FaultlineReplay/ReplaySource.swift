public import FaultlineCapture
public import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineRules
public import FaultlineServer
import FaultlineTLS
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
/// - **Credential state.** Each recorded credential's history (`CredentialHistory`: issued,
///   accepted, rejected from a point on, and why) and this run's progress through it
///   (`CredentialRun`): a credential rejected at this point of the run gets its recorded
///   rejection on any path, and an accepted one stands in for another of its kind on a route
///   recorded only with that other (`replay.matched` with `by: "credential-state"`).
/// - **Time.** Each answer's recorded times (`Date`, cookie and token expiry...) move by the
///   distance between its recorded request and this one, or as `--clock` says (`ReplayClock`,
///   `AnswerTimeShifter`); `replay.shifted` says which moved and by how much.
/// - **Issuer.** The run makes its own signing keys (`JWTSigner`, in memory only): a re-issued
///   JWT is re-signed with the key for its `alg` (`TokenMint`), and a recorded JWK Set answer
///   carries the run's public keys instead of the recorded ones (`RecordedKeySet`), so a client
///   that verifies ID tokens against the JWKS accepts the replayed ones; `replay.minted` and
///   `replay.keys` say so (algorithms and key ids, never a key or a token).
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

    let issued: IssuedSecrets
    let recorded: [Recorded]
    /// Recorded indices by `RequestShape.route`, when the match includes every route part.
    let routes: [String: [Int]]?
    let notice: @Sendable (String) -> Void
    /// The run's signing keys; nil when OpenSSL could not make them.
    let signer: JWTSigner?
    /// Warnings about the capture itself, for standard error after the banner (which tools read
    /// as the first `faultline ` line): a recorded clock that runs backwards.
    public let loadWarnings: [String]
    /// Events about the capture itself (`replay.clock-backwards`), written by `follow(_:)`.
    let loadEvents: [ReplayTraceEvent]
    /// Each recorded credential's history (`CredentialHistory`).
    let history: CredentialHistory
    let state: Mutex<State>
    /// When this source was made: `--now`'s clock runs on from it.
    let startedAt = MonotonicInstant.now()

    struct Recorded: Sendable {
        let exchange: CapturedExchange
        let request: CapturedRequest
        let response: CapturedResponse
        let shape: RequestShape
        /// A 2xx answer that issues a refresh token: a login or a refresh.
        let issuesRefresh: Bool
        /// The request presents a refresh token a recorded response issued: a refresh.
        let presentsRefresh: Bool

        /// Issued credentials the request presents, and the ones its answer issues (fingerprints).
        let credentials: [Credential]
        /// The recorded values of `credentials`, in the same order: what a stand-in replaces
        /// (`standInChoice`). Never traced.
        let presentedValues: [String]
        let issuedCredentials: [Credential]
        /// The answer is a rejection: a 401, or RFC 6749 §5.2's `invalid_grant`.
        let rejects: Bool

        /// The answer accepted the request's credentials.
        var accepts: Bool { !rejects && response.status < 400 }
        var isSuccessfulRefresh: Bool { presentsRefresh && issuesRefresh }
        var isRejectedRefresh: Bool { presentsRefresh && !(200..<300).contains(response.status) }
    }

    struct State: ~Copyable {
        var mint: TokenMint
        var uses: [Int]
        var cycles: [String: Int] = [:]
        var order: RecordedOrder?
        /// Live flow → the recorded flow it was matched to (ordered replay).
        var assignments: [FlowID: Int64] = [:]
        var parked: [Parked] = []
        /// Fresh refresh tokens a successful refresh has rotated: presenting one again is refused.
        var spentRefreshTokens: Set<String> = []
        /// This run's side of the credential state.
        var run = CredentialRun()
    }

    struct Parked {
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
        // The keys are the run's: a failure leaves JWTs in the placeholder form, and says so.
        var signer: JWTSigner?
        do { signer = try JWTSigner.makeEphemeral() } catch {
            notice(
                "faultline replay: no signing keys (\(error.description)): re-issued JWTs keep an unsigned placeholder")
        }
        self.signer = signer
        // A clock that ran backwards is worth a warning, not a refusal: `seq` keeps the order.
        let backwards = BackwardsClock.entries(in: capture)
        loadWarnings = Self.clockWarnings(capture, backwards)
        loadEvents =
            backwards.isEmpty
            ? []
            : [
                ReplayTraceEvent(
                    .replayClockBackwards,
                    [.int("count", backwards.count), .strings("entries", backwards.map(\.summary))])
            ]
        let issued = IssuedSecrets(capture: capture, policy: settings.secrets)
        self.issued = issued
        let refreshTokens = Set(issued.values.filter { capture.credentialKind(of: $0) == "refresh" })
        let recorded = capture.answeredExchanges.map { exchange in
            let request = exchange.upstreamRequest!
            let response = exchange.response!
            let keptBody = request.body.flatMap { $0.truncated ? nil : $0.bytes } ?? (capture.hasBodies ? [] : nil)
            let requestText = Self.text(of: request)
            let issuedValues = issued.byFlow[exchange.flow] ?? []
            let presentedValues = Self.issuedValues(in: requestText, issued: issued).filter {
                !issuedValues.contains($0)
            }
            let body = response.body.map { String(decoding: $0.bytes, as: UTF8.self) } ?? ""
            return Recorded(
                exchange: exchange, request: request, response: response,
                shape: RequestShape(
                    method: request.method, url: request.url, headers: request.headers, body: keptBody,
                    settings: settings,
                    issued: issued),
                issuesRefresh: (200..<300).contains(response.status)
                    && (issued.byFlow[exchange.flow] ?? []).contains { refreshTokens.contains($0) },
                // Whole values, as `issuedValues(in:issued:)` finds them: `flp.refresh.L1.1` is
                // not presented by a request carrying `flp.refresh.L1.12`.
                presentsRefresh: presentedValues.contains(where: refreshTokens.contains),
                credentials: presentedValues.map { Self.credential($0, capture: capture, issued: issued) },
                presentedValues: presentedValues,
                issuedCredentials: issuedValues.map { Self.credential($0, capture: capture, issued: issued) },
                rejects: response.status == 401 || (response.status == 400 && body.contains("invalid_grant")))
        }
        history = Self.credentialHistory(of: recorded)
        self.recorded = recorded
        let routeParts: [ReplaySettings.MatchPart] = [.method, .scheme, .host, .port, .path]
        if routeParts.allSatisfy(settings.match.contains) {
            routes = Dictionary(grouping: recorded.indices, by: { recorded[$0].shape.route })
        } else {
            routes = nil
        }
        state = Mutex(
            State(
                mint: TokenMint(signer: signer), uses: Array(repeating: 0, count: recorded.count),
                order: settings.order == .recorded ? RecordedOrder(capture: capture) : nil,
                run: CredentialRun(clock: settings.clock)))
    }

    /// Recorded exchanges this source can answer with.
    public var replayableCount: Int { recorded.count }

    /// The warnings about `capture` itself that a source made from it has as `loadWarnings`, for
    /// a command that makes a source per run (`faultline explore --replay`) to print once.
    public static func loadWarnings(for capture: Capture) -> [String] {
        clockWarnings(capture, BackwardsClock.entries(in: capture))
    }

    private static func clockWarnings(_ capture: Capture, _ backwards: [BackwardsClock.Entry]) -> [String] {
        guard !backwards.isEmpty else { return [] }
        return [
            "faultline replay: WARNING: \(capture.source): the recorded clock runs backwards at \(backwards.count) "
                + "entr\(backwards.count == 1 ? "y" : "ies") (answers' times move by a clock that jumped): "
                + backwards.prefix(5).map(\.summary).joined(separator: "; ")
                + (backwards.count > 5 ? "; and \(backwards.count - 5) more" : "")
        ]
    }

    // MARK: ReplayResponder

    public func respond(to request: UpstreamRequest, answer: @escaping @Sendable (ReplayAnswer) -> Void) -> ReplayWait?
    {
        var released: [(Parked, [ReplayTraceEvent])] = []
        var lines: [String] = []
        let (immediate, wait) = state.withLock { state -> (ReplayAnswer?, ReplayWait?) in
            let shape = liveShape(request, &state)
            let presented = state.mint.presented(in: Self.text(of: request))
            let refreshTokens = presented.filter { capture.credentialKind(of: $0.recorded) == "refresh" }.map(\.fresh)
            var credentials: [Credential] = []
            var values: [String] = []
            for value in presented.map(\.recorded) {
                let credential = Self.credential(value, capture: capture, issued: issued)
                if !credentials.contains(credential) {
                    credentials.append(credential)
                    values.append(value)
                }
            }
            guard
                let choice = rejectedChoice(shape, presenting: credentials, &state)
                    ?? choose(shape, presentingRefresh: refreshTokens, &state)
                    ?? standInChoice(request, shape, presenting: Array(zip(credentials, values)), &state)
            else {
                let (answer, line) = unmatched(request, shape, state.order)
                lines.append(line)
                return (answer, nil)
            }
            var events = choice.events
            if choice.recorded >= 0 {
                state.run.answered(
                    choice.recorded, issuing: recorded[choice.recorded].issuedCredentials.map(\.fingerprint),
                    at: runTime())
            }
            let response = makeResponse(choice.recorded, generation: choice.newGeneration, &state, events: &events)
            guard var order = state.order else { return (response(events), nil) }
            let recordedFlow = recorded[choice.recorded].exchange.flow
            state.assignments[request.flow] = recordedFlow
            order.received(recordedFlow)
            state.order = order
            released = releasable(&state)
            let missing = order.missing(before: recordedFlow)
            if missing.isEmpty { return (response(events), nil) }
            state.parked.append(
                Parked(
                    flow: request.flow, recordedFlow: recordedFlow, answer: answer, response: response(events),
                    since: .now()))
            let waiting = ReplayTraceEvent(
                .replayWaiting,
                [
                    .int("recorded_flow", recordedFlow), .strings("waiting_for", missing.map(\.summary)),
                    .double("deadline_s", settings.orderTimeout.inSeconds),
                ])
            return (nil, ReplayWait(deadline: settings.orderTimeout, trace: [waiting]))
        }
        for line in lines { notice(line) }
        if let immediate { answer(immediate) }
        deliver(released)
        return wait
    }

    public func expire(_ flow: FlowID) {
        let expired = state.withLock { state -> (Parked, [ReplayTraceEvent], String)? in
            guard let index = state.parked.firstIndex(where: { $0.flow == flow }), let order = state.order else {
                return nil
            }
            let parked = state.parked.remove(at: index)
            let missing = order.missing(before: parked.recordedFlow)
            let reason =
                "waited \(settings.orderTimeout.inSeconds)s for the recorded order; still missing: "
                + missing.prefix(5).map(\.summary).joined(separator: "; ")
            let event = ReplayTraceEvent(
                .replayDiverged,
                [
                    .int("recorded_flow", parked.recordedFlow), .string("reason", reason),
                    .strings("missing", missing.map(\.summary)),
                    .string("reached", order.reachedThrough?.summary ?? "nothing yet"),
                ])
            return (
                parked, [event],
                "faultline replay: diverged from the recorded order at recorded flow \(parked.recordedFlow): \(reason)"
            )
        }
        guard let (parked, events, line) = expired else { return }
        notice(line)
        deliver([(parked, events)])
    }

    public func finished(_ flow: FlowID, delivered: Bool) {
        let released = state.withLock { state -> [(Parked, [ReplayTraceEvent])] in
            guard var order = state.order, let recordedFlow = state.assignments.removeValue(forKey: flow) else {
                return []
            }
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
}

extension TraceEventKind {
    /// A request a replay answered from the recording: which recorded flow, which use of it.
    public static let replayMatched: TraceEventKind = "replay.matched"
    /// A request nothing recorded answers, with the nearest recorded request and why it differs.
    public static let replayUnmatched: TraceEventKind = "replay.unmatched"
    /// A refresh presenting a rotated refresh token got the recorded rejection.
    public static let replayRotated: TraceEventKind = "replay.rotated"
    /// An answer waits for the recorded order: which recorded flow, the recorded steps it waits
    /// for, and its deadline.
    public static let replayWaiting: TraceEventKind = "replay.waiting"
    /// An answer held for the recorded order went out.
    public static let replayReleased: TraceEventKind = "replay.released"
    /// The run left the recorded order: where, and what was missing.
    public static let replayDiverged: TraceEventKind = "replay.diverged"
    /// An answer's recorded times moved (`--clock`): which recorded flow, by how many seconds
    /// (`by_s`), and which fields (names and places, never values).
    public static let replayShifted: TraceEventKind = "replay.shifted"
    /// A re-issued JWT was re-minted: its `alg` and the run key's `kid`; or, with a `warning`, an
    /// `alg` the replay cannot sign (`none`, an unknown one), passed through unsigned.
    public static let replayMinted: TraceEventKind = "replay.minted"
    /// The capture's wall clock runs backwards: how many entries (`count`) and which, each with
    /// the earlier entry it comes after by `seq` but before by the clock (`entries`). The capture
    /// still loads.
    public static let replayClockBackwards: TraceEventKind = "replay.clock-backwards"
    /// A recorded JWK Set answer went out with the run's public keys: their `kids`, and how many
    /// keys the recording had.
    public static let replayKeys: TraceEventKind = "replay.keys"
}
