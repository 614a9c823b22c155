import FaultlineCore
public import FaultlineTrace

/// Checks a trace against the session-boundary contract (its clauses: ``ClauseID``, and
/// Rules/contracts/README.md) and says which clause was broken, by which requests.
///
/// Use ``check(_:contract:)`` on a trace read with `TraceReader`, or feed events one at a time
/// (``consume(header:)``, ``consume(_:)``, then ``finish()``) to check a trace of any length
/// without holding it: memory follows the requests in flight and what the clauses keep per
/// lineage, operation and key, not the number of events (``TraceFileReader`` streams a file).
///
/// Theory of operation: each event first goes through the integrity checks (gapless `seq`,
/// clear secrets). Client requests are rebuilt from `request.received` (proxy-made duplicates,
/// marked `duplicate_of`, and CONNECT tunnels are left out: they are not the client's session
/// logic) and followed to the event that ends their flow. Lineages are rebuilt from `lineage.*`
/// events and logout requests alone (``LineageLedger``). Each clause family judges at the
/// moment the trace settles it: credential and refresh clauses when a request arrives
/// (``CredentialClauses``, ``RefreshClauses``), retry clauses when a flow ends
/// (``RetryClauses``), pipeline clauses at both and at the end (``PipelineClauses``).
public struct ContractChecker {
    /// Violations kept per clause; more are counted in ``ContractReport/omittedViolations``.
    public static let maximumViolationsPerClause = 100
    /// Trace problems kept; more are counted in ``ContractReport/omittedTraceProblems``.
    public static let maximumTraceProblems = 100

    private enum State {
        case reading
        case finished
    }

    /// The contract being checked.
    public let contract: Contract
    private var state = State.reading
    private var log: ViolationLog
    private var integrity = TraceIntegrity(limit: maximumTraceProblems)
    private var ledger = LineageLedger()
    private var flows = FlowTable()
    private var refreshes = RefreshClauses()
    private var credentials = CredentialClauses()
    private var retries: RetryClauses
    private var pipeline: PipelineClauses
    private var backoff = RetryAfterClause()
    private var eventCount = 0
    private var profile = ProfileEvidence()
    private var lastSeq: UInt64 = 0
    private var lastMono: UInt64 = 0

    /// A checker for `contract`, before any event.
    public init(contract: Contract = .default) {
        self.contract = contract
        log = ViolationLog(enabled: contract.enabledClauses, limitPerClause: Self.maximumViolationsPerClause)
        retries = RetryClauses(identityHeader: contract.retryIdentityHeader)
        pipeline = PipelineClauses(contract: contract)
    }

    /// Checks a whole trace read into memory.
    public static func check(_ trace: Trace, contract: Contract = .default) -> ContractReport {
        var checker = ContractChecker(contract: contract)
        checker.consume(header: trace.header)
        for event in trace.events { checker.consume(event) }
        return checker.finish()
    }

    /// Feeds the header line. Call first (optional for traces built in memory).
    public mutating func consume(header: TraceHeader) {
        precondition(state == .reading, "ContractChecker: consume(header:) after finish()")
        integrity.header(header)
    }

    /// Feeds the next event, in file order.
    public mutating func consume(_ event: TraceEvent) {
        precondition(state == .reading, "ContractChecker: consume(_:) after finish()")
        if eventCount == 0 { log.startMono = event.monoNanoseconds }
        eventCount += 1
        integrity.check(event)
        lastSeq = max(lastSeq, event.seq)
        lastMono = max(lastMono, event.monoNanoseconds)
        let flow = event.flow?.rawValue
        switch event.kind.rawValue {
        case "request.received":
            guard let request = ClientRequest(event, identityHeader: contract.retryIdentityHeader) else { return }
            requestArrived(request)
        case "request.forwarded":
            guard let flow else { return }
            flows.forwarded(
                flow: flow, body: event.body("body"), captured: event.object("content").flatMap(CapturedPrefix.init))
            refreshes.requestForwarded(flow: flow)
        case "response.delivered":
            guard let flow else { return }
            end(
                flow, .answered, event, status: event.int("status").map { Int($0) },
                synthetic: event.bool("synthetic") ?? false)
        case "flow.aborted":
            guard let flow else { return }
            end(flow, .aborted, event, status: nil, synthetic: false)
        case "upstream.error", "protocol.error":
            guard let flow else { return }
            flows.failed(flow: flow, code: event.string("code"))
        case "connection.closed":
            guard let connection = event.connection?.rawValue else { return }
            for (request, outcome) in flows.endConnection(connection, seq: event.seq, mono: event.monoNanoseconds) {
                flowEnded(request, outcome)
            }
        case "mark":
            pipeline.mark(seq: event.seq, mono: event.monoNanoseconds, label: event.string("label") ?? "", log: &log)
        case "rules.loaded", "rules.reloaded":
            profile.rulesEvent(event)
        default:
            guard event.kind.rawValue.hasPrefix("lineage.") else { return }
            guard let step = ledger.apply(event) else { return }
            refreshes.lineageStep(step, ledger: ledger)
        }
    }

    /// Ends the check and returns the report. Requests still open count as unfinished.
    public mutating func finish() -> ContractReport {
        precondition(state == .reading, "ContractChecker: finish() called twice")
        for (request, outcome) in flows.endAll(seq: lastSeq, mono: lastMono) { flowEnded(request, outcome) }
        pipeline.finish(endSeq: lastSeq, endMono: lastMono, log: &log)
        // A logout is what logout-boundary watches from (a correct client sends nothing after
        // it); a credential issued after one is what no-reactivation watches.
        if ledger.sawLogout { log.exercise(.logoutBoundary) }
        if ledger.sawLateCredential { log.exercise(.noReactivation) }
        state = .finished

        var checked: [ClauseID] = []
        var unexercised: [ContractReport.UnexercisedClause] = []
        var skipped: [ContractReport.SkippedClause] = []
        var disabled: [ClauseID] = []
        for clause in ClauseID.allCases {
            guard contract.isEnabled(clause) else {
                disabled.append(clause)
                continue
            }
            if let (reason, cause) = skipReason(clause), log.violations.allSatisfy({ $0.clause != clause }) {
                skipped.append(ContractReport.SkippedClause(clause: clause, reason: reason, cause: cause))
            } else {
                checked.append(clause)
                if !log.exercised.contains(clause) {
                    unexercised.append(
                        ContractReport.UnexercisedClause(clause: clause, reason: Self.idleReason(clause)))
                }
            }
        }
        return ContractReport(
            contract: ContractSummary(contract), violations: log.violations, omittedViolations: log.omitted,
            clausesChecked: checked, clausesUnexercised: unexercised, clausesSkipped: skipped,
            clausesDisabled: disabled, traceProblems: integrity.problems, omittedTraceProblems: integrity.omitted,
            eventCount: eventCount, lineages: ledger.order)
    }

    private func skipReason(_ clause: ClauseID) -> (String, ContractReport.SkippedClause.Cause)? {
        switch clause {
        case .singleFlightRefresh, .noStaleRefresh, .logoutBoundary, .noReactivation:
            profile.skipReason(clause, lineages: ledger.order.count).map { ($0, .missingData) }
        case .exactlyOnce:
            contract.callbacks.isEmpty ? ("the contract declares no callbacks", .nothingDeclared) : nil
        case .dependencyRespected:
            contract.dependencies.isEmpty && contract.commitSteps.isEmpty
                ? ("the contract declares no dependencies and no commit steps", .nothingDeclared) : nil
        default:
            nil
        }
    }

    /// What a trace lacks when `clause` had nothing to judge (the cases that exercise it).
    static func idleReason(_ clause: ClauseID) -> String {
        switch clause {
        case .singleFlightRefresh, .noStaleRefresh: "the trace has no refresh"
        case .boundedRetry: "no business request was answered 401"
        case .logoutBoundary: "the trace has no logout"
        case .accountIsolation: "no request presented credentials while two or more lineages existed"
        case .noReactivation: "no credential was issued after a logout"
        case .exactlyOnce: "no request matched a declared callback"
        case .dependencyRespected: "no request matched a dependent or commit step"
        case .replaySafeRetry: "no non-idempotent request with a body failed in a way clients retry"
        case .retryAfterRespected: "no 429 or 503 answer said Retry-After"
        default: "the trace has nothing this clause judges"
        }
    }

    private mutating func requestArrived(_ request: ClientRequest) {
        profile.request(request)
        flows.start(request)
        credentials.requestArrived(request, ledger: ledger, log: &log)
        if request.role == "logout", let lineage = ledger.lineage(of: request) {
            ledger.logoutRequested(lineage, request: request)
        } else if let lineage = request.lineageField {
            ledger.ensure(lineage, seq: request.seq, mono: request.mono, event: "request.received")
        }
        refreshes.requestArrived(request, ledger: ledger, log: &log)
        pipeline.requestArrived(request, ledger: ledger, log: &log)
    }

    private mutating func end(
        _ flow: UInt64, _ ending: TracedOutcome.Ending, _ event: TraceEvent, status: Int?, synthetic: Bool
    ) {
        guard
            let (request, ended) = flows.end(
                flow: flow, ending: ending, status: status, synthetic: synthetic, seq: event.seq,
                mono: event.monoNanoseconds)
        else { return }
        var outcome = ended
        outcome.retryAfter = event.string("retry_after").flatMap { RetryAfter($0, delivered: event.wall) }
        flowEnded(request, outcome)
    }

    private mutating func flowEnded(_ request: ClientRequest, _ outcome: TracedOutcome) {
        log.flowEnded(request.flow, status: outcome.status)
        refreshes.flowEnded(request, outcome, ledger: ledger)
        retries.flowEnded(request, outcome, ledger: ledger, log: &log)
        pipeline.flowEnded(request, outcome, log: &log)
        backoff.flowEnded(request, outcome, ledger: ledger, log: &log)
    }
}
