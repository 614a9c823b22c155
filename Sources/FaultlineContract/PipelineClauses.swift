/// `dependency-respected` and `exactly-once`: the contract's declared steps, dependencies,
/// cancel marks and callbacks.
///
/// A step's outcome for a key is its latest ended attempt: a success is an answer below 400;
/// anything else (an error status, the client leaving, a broken exchange) is a failure.
///
/// **dependency-respected.** When a step arrives for key `k`, every step it needs must have
/// succeeded for `k` already, and not failed since: requesting it after the dependency failed,
/// while the dependency is still running, or before any success breaks the clause. A commit step
/// arriving after a cancel mark for its key (or a cancel of every key) breaks it too; a cancel
/// after the commit does not (a committed job stays committed). The app's own steps count too,
/// through the testing library's step marks (`TestProxy.step`): `step write job=7
/// outcome=cancelled` cancels job 7 as a cancel mark does, and `step write job=7 outcome=started`
/// (or `succeeded`) of a commit step after a cancel of job 7 breaks the clause as a request would.
///
/// **exactly-once.** A callback attempt *counts* when it was answered below 400, or 409 (a
/// server that saw it before), or forwarded upstream without a complete answer (the server may
/// have acted on it). Rejected attempts do not count, so a retry after a 503 is fine. The app's
/// own completions count too: a step mark named after the callback (`step complete job=7
/// outcome=succeeded`, from `TestProxy.step`) is a delivery, one marked `failed` a rejected
/// attempt. Two counted attempts for one key break the clause. Zero breaks it only for keys that
/// must appear: listed in `required`, or whose `after` step succeeded.
struct PipelineClauses {
    private struct StepState {
        var running: [ClientRequest] = []
        var lastSuccess: (request: ClientRequest, outcome: TracedOutcome)?
        var lastFailure: (request: ClientRequest, outcome: TracedOutcome)?

        var succeeded: Bool {
            guard let success = lastSuccess else { return false }
            return lastFailure.map { $0.outcome.endSeq < success.outcome.endSeq } ?? true
        }
    }

    /// A mark in the trace: a cancel, or a step of the app's own.
    private struct Mark {
        let seq: UInt64
        let mono: UInt64
        let label: String
    }

    /// One attempt at a callback: a request with how it ended, or the app's own step mark.
    private enum Attempt {
        case request(ClientRequest, TracedOutcome)
        case mark(Mark)

        var seq: UInt64 {
            switch self {
            case .request(let request, _): request.seq
            case .mark(let mark): mark.seq
            }
        }
    }

    private struct Tally {
        var counted: [Attempt] = []
        var rejected: [Attempt] = []
        var countedTotal = 0

        mutating func add(_ attempt: Attempt, counts: Bool) {
            if counts {
                countedTotal += 1
                if counted.count < PipelineClauses.keptAttempts { counted.append(attempt) }
            } else if rejected.count < PipelineClauses.keptAttempts {
                rejected.append(attempt)
            }
        }
    }

    static let keptAttempts = 10

    let contract: Contract
    /// Step name → key → state.
    private var steps: [String: [String: StepState]] = [:]
    /// Callback index → key → tally.
    private var tallies: [Int: [String: Tally]] = [:]
    private var cancels: [String: Mark] = [:]
    private var cancelAll: Mark?
    /// Commit steps the app ran itself (`step write job=7 outcome=started` marks) after a cancel
    /// of their key: the mark and the cancel before it, reported by `finish`.
    private var committedAfterCancel: [(step: Mark, name: String, key: String, cancel: Mark)] = []
    /// Whether the app marked a commit step of its own at all (the clause met a case then).
    private var sawCommitStepMark = false

    init(contract: Contract) { self.contract = contract }

    /// The first declared step the request is, with its key ("" when the step has none).
    private func step(of request: ClientRequest) -> (step: StepDeclaration, key: String)? {
        for step in contract.steps {
            if let captures = step.match.match(method: request.method, host: request.host, path: request.path) {
                return (step, step.key.flatMap { captures[$0] } ?? "")
            }
        }
        return nil
    }

    mutating func requestArrived(_ request: ClientRequest, ledger: LineageLedger, log: inout ViolationLog) {
        guard let (step, key) = step(of: request) else { return }
        if contract.dependencies.contains(where: { $0.step == step.name }) || contract.commitSteps.contains(step.name) {
            log.exercise(.dependencyRespected)
        }
        let lineage = ledger.lineage(of: request)
        for dependency in contract.dependencies where dependency.step == step.name {
            checkDependency(request, step: step, needs: dependency.needs, key: key, lineage: lineage, log: &log)
        }
        if contract.commitSteps.contains(step.name) {
            checkCancel(request, step: step, key: key, lineage: lineage, log: &log)
        }
        steps[step.name, default: [:]][key, default: StepState()].running.append(request)
    }

    mutating func flowEnded(_ request: ClientRequest, _ outcome: TracedOutcome, log: inout ViolationLog) {
        if let (step, key) = step(of: request) {
            var state = steps[step.name, default: [:]][key, default: StepState()]
            state.running.removeAll { $0.flow == request.flow }
            if outcome.succeeded {
                state.lastSuccess = (request, outcome)
            } else {
                state.lastFailure = (request, outcome)
            }
            steps[step.name, default: [:]][key] = state
        }
        for (index, callback) in contract.callbacks.enumerated() {
            guard
                let captures = callback.match?.match(method: request.method, host: request.host, path: request.path)
            else { continue }
            log.exercise(.exactlyOnce)
            let key = callback.key.flatMap { captures[$0] } ?? ""
            tallies[index, default: [:]][key, default: Tally()].add(
                .request(request, outcome), counts: Self.counts(outcome))
            break
        }
    }

    mutating func mark(seq: UInt64, mono: UInt64, label: String, log: inout ViolationLog) {
        let entry = Mark(seq: seq, mono: mono, label: label)
        if let step = StepMark(label: label) { countCompletion(step, entry, log: &log) }
        guard let cancel = contract.cancel else { return }
        if let (name, key) = Self.committingStep(label: label, key: cancel.key), contract.commitSteps.contains(name) {
            sawCommitStepMark = true
            if let before = [cancels[key], cancelAll].compactMap({ $0 }).min(by: { $0.seq < $1.seq }) {
                committedAfterCancel.append((entry, name, key, before))
            }
        }
        guard let cancelled = cancel.cancelledKey(label: label) ?? Self.cancelledStep(label: label, key: cancel.key)
        else { return }
        if let key = cancelled {
            if cancels[key] == nil { cancels[key] = entry }
        } else if cancelAll == nil {
            cancelAll = entry
        }
    }

    /// The app's own completion: a step mark named after a declared callback. `succeeded`
    /// delivers it, `failed` is a rejected attempt, and other outcomes deliver nothing.
    private mutating func countCompletion(_ step: StepMark, _ mark: Mark, log: inout ViolationLog) {
        guard step.outcome == "succeeded" || step.outcome == "failed",
            let index = contract.callbacks.firstIndex(where: { $0.name == step.name })
        else { return }
        log.exercise(.exactlyOnce)
        let key = contract.callbacks[index].key.flatMap { step.value(of: $0) } ?? ""
        tallies[index, default: [:]][key, default: Tally()].add(.mark(mark), counts: step.outcome == "succeeded")
    }

    /// The key a step mark of the testing library cancels (`step write job=7 outcome=cancelled`,
    /// written by `TestProxy.step`): the app's own step ended cancelled, so the job is cancelled
    /// as a cancel mark would say. `.some(nil)` cancels every key (the mark names no `key=`
    /// word); nil when the label is no cancelled step.
    static func cancelledStep(label: String, key: String?) -> String?? {
        guard let step = StepMark(label: label), step.outcome == "cancelled" else { return nil }
        return .some(key.flatMap { step.value(of: $0) })
    }

    /// The step and key of a step mark saying the app started or finished a step itself
    /// (`step write job=7 outcome=started`, or `succeeded`); nil for any other label.
    static func committingStep(label: String, key: String?) -> (name: String, key: String)? {
        guard let step = StepMark(label: label), step.outcome == "started" || step.outcome == "succeeded" else {
            return nil
        }
        return (step.name, key.flatMap { step.value(of: $0) } ?? "")
    }

    /// Whether a callback attempt counts as delivered (see the type's notes).
    static func counts(_ outcome: TracedOutcome) -> Bool {
        switch outcome.ending {
        case .answered: return outcome.status.map { $0 < 400 || $0 == 409 } ?? false
        case .aborted, .failed, .unfinished: return outcome.forwarded
        }
    }

    private func keyText(_ step: StepDeclaration, _ key: String) -> String {
        guard let name = step.key, !key.isEmpty else { return "" }
        return " of \(name) \(key)"
    }

    private func checkDependency(
        _ request: ClientRequest, step: StepDeclaration, needs: String, key: String, lineage: String?,
        log: inout ViolationLog
    ) {
        guard let needed = contract.step(named: needs) else { return }
        let neededKey = needed.key == nil ? "" : key
        let state = steps[needs]?[neededKey] ?? StepState()
        guard !state.succeeded else { return }
        let subject = "\(request.label) (\(step.name)\(keyText(step, key)))"
        var witnesses = [log.request(request, lineage: lineage, note: "\(step.name) requested", marker: .offending)]
        let reason: String
        if let failure = state.lastFailure {
            let how = failure.outcome.status.map { "with \($0)" } ?? "without an answer"
            reason = "after \(needs)\(keyText(needed, neededKey)) failed \(how) at seq \(failure.outcome.endSeq)"
            witnesses.append(
                log.request(
                    failure.request, lineage: lineage, note: "\(needs) requested", status: failure.outcome.status))
            witnesses.append(
                log.answer(
                    failure.request, failure.outcome, lineage: lineage, note: "\(needs) failed", marker: .boundary))
        } else if let running = state.running.first {
            reason = "while \(needs)\(keyText(needed, neededKey)) sent at seq \(running.seq) was still running"
            witnesses.append(log.request(running, lineage: lineage, note: "\(needs) running", marker: .boundary))
        } else {
            reason = "before any \(needs)\(keyText(needed, neededKey)) succeeded"
        }
        log.record(
            .dependencyRespected, "\(subject) was requested at seq \(request.seq) \(reason)", lineage: lineage,
            details: ["request_seq": String(request.seq), "step": step.name, "needs": needs, "key": key],
            witnesses: witnesses)
    }

    private func checkCancel(
        _ request: ClientRequest, step: StepDeclaration, key: String, lineage: String?, log: inout ViolationLog
    ) {
        let candidates = [cancels[key], cancelAll].compactMap { $0 }.filter { $0.seq < request.seq }
        guard let cancel = candidates.min(by: { $0.seq < $1.seq }) else { return }
        let distance = request.seq - cancel.seq
        log.record(
            .dependencyRespected,
            "\(request.label) (\(step.name)\(keyText(step, key)), a commit) was requested at seq \(request.seq), \(distance) event\(distance == 1 ? "" : "s") after the mark '\(cancel.label)' at seq \(cancel.seq)",
            lineage: lineage,
            details: [
                "request_seq": String(request.seq), "mark_seq": String(cancel.seq), "step": step.name, "key": key,
            ],
            witnesses: [
                markWitness(cancel, marker: .boundary, log: log),
                log.request(request, lineage: lineage, note: "commit after cancel", marker: .offending),
            ])
    }

    /// Reports callbacks counted twice or more, and required keys with none. Call once, at the
    /// end; `endSeq`/`endMono` are the trace's last event, the witness for "never sent".
    func finish(endSeq: UInt64, endMono: UInt64, log: inout ViolationLog) {
        for (step, name, key, cancel) in committedAfterCancel {
            let distance = step.seq - cancel.seq
            log.record(
                .dependencyRespected,
                "The app ran \(name)\(key.isEmpty ? "" : " of \(contract.cancel?.key ?? "key") \(key)") (a commit) itself at seq \(step.seq), \(distance) event\(distance == 1 ? "" : "s") after the mark '\(cancel.label)' at seq \(cancel.seq)",
                details: [
                    "mark_seq": String(cancel.seq), "step_seq": String(step.seq), "step": name, "key": key,
                ],
                witnesses: [
                    markWitness(cancel, marker: .boundary, log: log),
                    markWitness(step, marker: .offending, log: log),
                ])
        }
        if sawCommitStepMark { log.exercise(.dependencyRespected) }
        for (index, callback) in contract.callbacks.enumerated() {
            let byKey = tallies[index] ?? [:]
            for key in byKey.keys.sorted() {
                guard let tally = byKey[key], tally.countedTotal >= 2 else { continue }
                reportRepeated(callback, key: key, tally, log: &log)
            }
            var required = Set(callback.required)
            if let after = callback.after {
                for (key, state) in steps[after] ?? [:] where state.lastSuccess != nil { required.insert(key) }
            }
            if !required.isEmpty { log.exercise(.exactlyOnce) }
            for key in required.sorted() where (byKey[key]?.countedTotal ?? 0) == 0 {
                reportMissing(callback, key: key, byKey[key] ?? Tally(), end: (endSeq, endMono), log: &log)
            }
        }
    }

    private func callbackKeyText(_ callback: CallbackDeclaration, _ key: String) -> String {
        guard let name = callback.key, !key.isEmpty else { return "" }
        return " for \(name) \(key)"
    }

    private func reportRepeated(_ callback: CallbackDeclaration, key: String, _ tally: Tally, log: inout ViolationLog) {
        var witnesses: [ViolationLog.Witness] = []
        for (offset, attempt) in tally.counted.enumerated() {
            witnesses.append(
                witness(
                    attempt, note: offset == 0 ? "callback" : "callback again",
                    marker: offset == 0 ? .context : .offending, log: log))
        }
        let seqs = tally.counted.map { "seq \($0.seq)" }.joined(separator: ", ")
        let first: String
        if case .request(let request, _) = tally.counted.first { first = request.label } else { first = callback.name }
        log.record(
            .exactlyOnce,
            "The callback \(first)\(callbackKeyText(callback, key)) was delivered \(tally.countedTotal) times (\(seqs))",
            details: ["callback": callback.name, "key": key, "count": String(tally.countedTotal)],
            witnesses: witnesses)
    }

    /// A callback attempt as a witness: the request, or the app's step mark.
    private func witness(
        _ attempt: Attempt, note: String, marker: WitnessEvent.Marker, log: ViolationLog
    ) -> ViolationLog.Witness {
        switch attempt {
        case .request(let request, let outcome):
            log.request(request, lineage: nil, note: note, marker: marker, status: outcome.status)
        case .mark(let mark): markWitness(mark, note: note, marker: marker, log: log)
        }
    }

    /// A mark as a witness: `note: mark 'LABEL'`, or `mark 'LABEL'` without a note.
    private func markWitness(
        _ mark: Mark, note: String? = nil, marker: WitnessEvent.Marker, log: ViolationLog
    ) -> ViolationLog.Witness {
        let text = "mark '\(mark.label)'"
        return log.event(
            seq: mark.seq, mono: mark.mono, kind: "mark", lineage: nil, note: note.map { "\($0): \(text)" } ?? text,
            marker: marker)
    }

    private func reportMissing(
        _ callback: CallbackDeclaration, key: String, _ tally: Tally, end: (seq: UInt64, mono: UInt64),
        log: inout ViolationLog
    ) {
        var witnesses: [ViolationLog.Witness] = []
        var because = "it is required"
        if let after = callback.after, let success = steps[after]?[key]?.lastSuccess {
            because = "\(after) succeeded at seq \(success.outcome.endSeq)"
            witnesses.append(
                log.request(success.request, lineage: nil, note: "\(after) requested", status: success.outcome.status))
            witnesses.append(
                log.answer(
                    success.request, success.outcome, lineage: nil, note: "\(after) succeeded", marker: .boundary))
        }
        for attempt in tally.rejected {
            witnesses.append(witness(attempt, note: "callback rejected", marker: .context, log: log))
        }
        witnesses.append(
            log.event(
                seq: end.seq, mono: end.mono, kind: "trace.end", lineage: nil, note: "trace ends, no accepted callback",
                marker: .offending))
        let attempts =
            tally.rejected.isEmpty
            ? "was never sent"
            : "was sent \(tally.rejected.count) time\(tally.rejected.count == 1 ? "" : "s") but never accepted"
        log.record(
            .exactlyOnce,
            "The callback \(callback.match?.summary ?? callback.name)\(callbackKeyText(callback, key)) \(attempts), although \(because)",
            details: ["callback": callback.name, "key": key, "count": "0"],
            witnesses: witnesses)
    }
}
