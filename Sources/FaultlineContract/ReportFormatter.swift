import FaultlineCore
import Foundation

/// Prints a ``ContractReport`` for people (``text(_:traceName:)``), CI systems (``junit(_:traceName:)``)
/// and tools (``json(_:)``, which `JSONDecoder` reads back into an equal report).
public enum ReportFormatter {
    /// The report for a person: the contract line (``ContractSummary/line``), a verdict line,
    /// then one block per violation (clause, sentence, and a compact per-lineage timeline of the
    /// witness events with the boundary marked `─▶` and the offending request `✗▶`), then the
    /// clauses that held (`✓`), had nothing to judge (`○`, with what the trace lacked), could not
    /// be checked (`?`, with the reason) or were disabled, and any trace problems. `traceName` is
    /// named in the verdict line.
    public static func text(_ report: ContractReport, traceName: String? = nil) -> String {
        var lines: [String] = [report.contract.line, verdict(report, traceName: traceName)]
        for violation in report.violations {
            lines.append("")
            lines += block(violation)
        }
        let omitted = report.omittedViolations.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        if !omitted.isEmpty {
            lines.append("")
            for (clause, count) in omitted {
                lines.append("… and \(count) more violation\(count == 1 ? "" : "s") of \(clause.rawValue) (not listed)")
            }
        }
        lines.append("")
        lines.append("clauses:")
        for clause in ClauseID.allCases {
            if let standing = report.standing(of: clause) { lines.append("  " + standing.line(clause)) }
        }
        if !report.traceProblems.isEmpty {
            lines.append("")
            lines.append("trace problems (the trace itself cannot be fully trusted):")
            for problem in report.traceProblems { lines.append("  \(problem.kind.rawValue): \(problem.message)") }
            if report.omittedTraceProblems > 0 { lines.append("  … and \(report.omittedTraceProblems) more") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The report as JSON (pretty-printed, keys sorted): `format`, `passed`, `violations` with
    /// their witnesses and timelines, the clause lists, `traceProblems`, counts and lineages.
    public static func json(_ report: ContractReport) -> String {
        ReportJSON.text(report, what: "a contract report")
    }

    /// One line: `TRACE: FAILED: 2 violations of logout-boundary (…)`, `TRACE: PASSED: …` when every
    /// enabled clause was checked, or `TRACE: PASSED IN PART: 2 enabled clauses could not be
    /// checked (…)` when some were not: a check that could not run is not a pass. Clauses the
    /// trace gave nothing to judge are counted apart from those that held. The line after the
    /// contract's in ``text(_:traceName:)``.
    public static func verdict(_ report: ContractReport, traceName: String?) -> String {
        let subject = traceName.map { "\(traceFileName($0)): " } ?? ""
        let lineages: String
        switch report.lineages.count {
        case 0: lineages = "no lineages"
        case 1...4: lineages = "lineages " + report.lineages.joined(separator: ", ")
        default:
            lineages =
                "\(report.lineages.count) lineages, \(report.lineages[0]) to \(report.lineages[report.lineages.count - 1])"
        }
        let scope = "\(report.eventCount) events, \(lineages)"
        let broken = report.brokenClauses
        let disabled = report.clausesDisabled.isEmpty ? "" : "\(report.clausesDisabled.count) disabled; "
        let skipped = report.clausesSkipped.count
        let unchecked =
            "\(skipped) enabled clause\(skipped == 1 ? "" : "s") could not be checked ("
            + report.clausesSkipped.map(\.clause.rawValue).joined(separator: ", ") + ")"
        if report.passed {
            let idleCount = report.clausesUnexercised.count
            let count = report.clausesChecked.count - idleCount
            let held = "\(count) clause\(count == 1 ? "" : "s") held"
            let idle =
                idleCount == 0
                ? ""
                : "\(idleCount) had nothing to judge ("
                    + report.clausesUnexercised.map(\.clause.rawValue).joined(separator: ", ") + "); "
            guard skipped > 0 else {
                return "\(subject)PASSED: the trace holds the contract (\(held); \(idle)\(disabled)\(scope))"
            }
            return "\(subject)PASSED IN PART: \(unchecked); \(held) (\(idle)\(disabled)\(scope))"
        }
        var parts: [String] = []
        let total = broken.reduce(0) { $0 + report.violationCount(of: $1) }
        if total > 0 {
            parts.append(
                "\(total) violation\(total == 1 ? "" : "s") of \(broken.map(\.rawValue).joined(separator: ", "))")
        }
        let problems = report.traceProblems.count + report.omittedTraceProblems
        if problems > 0 { parts.append("\(problems) trace problem\(problems == 1 ? "" : "s")") }
        let alsoUnchecked = skipped > 0 ? "; \(unchecked)" : ""
        return "\(subject)FAILED: \(parts.joined(separator: " and "))\(alsoUnchecked) (\(scope))"
    }

    /// One violation: `✗ clause: requirement`, the sentence, the timeline.
    static func block(_ violation: Violation) -> [String] {
        var lines = [
            "✗ \(violation.clause.rawValue): \(violation.clause.requirement)",
            "  \(violation.summary).",
        ]
        lines += timeline(violation.timeline).map { "  " + $0 }
        return lines
    }

    /// Witness events grouped per lineage (in order of first appearance; events of no lineage
    /// last), each group in `seq` order, columns aligned across the whole timeline.
    static func timeline(_ events: [WitnessEvent]) -> [String] {
        guard !events.isEmpty else { return [] }
        var groups: [(lineage: String?, events: [WitnessEvent])] = []
        for event in events {
            if let index = groups.firstIndex(where: { $0.lineage == event.lineage }) {
                groups[index].events.append(event)
            } else {
                groups.append((event.lineage, [event]))
            }
        }
        groups.sort { ($0.lineage == nil ? 1 : 0) < ($1.lineage == nil ? 1 : 0) }
        let seqWidth = events.map { String($0.seq).count }.max() ?? 1
        let whatWidth = min(events.map { what($0).count }.max() ?? 0, 48)
        let timeWidth = events.map { time($0).count }.max() ?? 0
        let showHeaders = groups.count > 1 || groups.first?.lineage != nil
        var lines: [String] = []
        for group in groups {
            if showHeaders { lines.append(group.lineage.map { "lineage \($0)" } ?? "other events") }
            for event in group.events.sorted(by: { $0.seq < $1.seq }) {
                let arrow =
                    switch event.marker {
                    case .context: "   "
                    case .boundary: "─▶ "
                    case .offending: "✗▶ "
                    }
                let seq = String(event.seq)
                let line =
                    "  \(arrow)seq \(String(repeating: " ", count: seqWidth - seq.count))\(seq)  "
                    + pad(time(event), timeWidth) + "  " + pad(what(event), whatWidth) + "  " + event.note
                lines.append(line)
            }
        }
        return lines
    }

    /// `GET /v1/messages → 401` for a request, `401 for GET /v1/messages` for its answer, the
    /// event kind for events that are not a request's.
    static func what(_ event: WitnessEvent) -> String {
        guard let method = event.method, let path = event.path else { return event.event }
        switch event.event {
        case "request.received":
            return "\(method) \(path)" + (event.status.map { " → \($0)" } ?? "")
        case "response.delivered":
            return "\(event.status.map(String.init) ?? "answer") for \(method) \(path)"
        default:
            return "\(event.event) of \(method) \(path)"
        }
    }

    /// `+1.250s` since the trace's first event.
    static func time(_ event: WitnessEvent) -> String {
        let milliseconds = event.offsetNanoseconds / 1_000_000
        let fraction = String(milliseconds % 1000)
        return "+\(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)s"
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
