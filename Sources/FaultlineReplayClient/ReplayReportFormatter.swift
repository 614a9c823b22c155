import FaultlineCore
import Foundation

/// The replay report as text (one line per request, then the summary) or as JSON for machines.
/// Neither ever holds a live credential: URLs and values are the capture's, and live strings
/// that are credentials are left out of differences (`JSONBodyComparison`).
public enum ReplayReportFormatter {
    /// `#N METHOD URL  recorded STATUS → now STATUS  [same|DIFF]` per request, then the counts,
    /// the differences, timing, unresolved pseudonyms and the verdict.
    public static func text(_ report: ReplayReport) -> String {
        var lines = report.results.map(line)
        lines.append("")
        let requests = report.results.count
        lines.append(
            "\(requests) request\(requests == 1 ? "" : "s") on \(report.connectionCount) connection\(report.connectionCount == 1 ? "" : "s") "
                + "to \(report.target): \(report.count(.same)) same, \(report.count(.different)) different, "
                + "\(report.count(.failed)) failed, \(report.count(.skipped)) skipped")
        let differing = report.results.filter(\.isDifference)
        if !differing.isEmpty {
            lines.append("differences:")
            for result in differing {
                let subject = "  #\(result.number) \(result.method) \(result.url): "
                var reasons = result.differences.map(\.description)
                if let error = result.error {
                    reasons.append(result.outcome == .skipped ? "not sent: \(error)" : "no answer: \(error)")
                }
                lines.append(subject + reasons.joined(separator: "; "))
            }
        }
        lines.append(
            "timing: recorded \(seconds(report.recordedSpan)), replayed in \(seconds(report.replaySpan)) at speed \(speedText(report.speed))"
        )
        if !report.unresolved.isEmpty {
            lines.append(
                "sent as recorded, for want of a live value: \(report.unresolved.joined(separator: ", ")) "
                    + "(give one with --secret PSEUDONYM=VALUE)")
        }
        lines.append(verdict(report))
        return lines.joined(separator: "\n") + "\n"
    }

    /// One request's line.
    public static func line(_ result: ReplayResult) -> String {
        let recorded = result.recordedStatus.map(String.init) ?? "none"
        let now: String
        switch result.outcome {
        case .skipped: now = "not sent"
        case .failed, .same, .different:
            now = result.status.map(String.init) ?? (result.error == nil ? "none" : "error")
        }
        let mark = result.isDifference ? "DIFF" : "same"
        return "#\(result.number) \(result.method) \(result.url)  recorded \(recorded) → now \(now)  [\(mark)]"
    }

    /// `PASSED: ...` or `FAILED: ...`, the last line of the text report.
    public static func verdict(_ report: ReplayReport) -> String {
        let count = report.differenceCount
        let differences = "\(count) difference\(count == 1 ? "" : "s")"
        if count == 0 { return "PASSED: every answer is the same as recorded" }
        if report.passed { return "PASSED: \(differences), within --allow \(report.allowedDifferences)" }
        return "FAILED: \(differences), more than --allow \(report.allowedDifferences)"
    }

    /// The report as one JSON document (pretty-printed, keys sorted).
    public static func json(_ report: ReplayReport) -> String {
        let document = Document(
            capture: report.capture, target: report.target, speed: report.speed, passed: report.passed,
            summary: Summary(
                requests: report.results.count, connections: report.connectionCount, same: report.count(.same),
                different: report.count(.different), failed: report.count(.failed), skipped: report.count(.skipped),
                differences: report.differenceCount, allowed: report.allowedDifferences),
            timing: Timing(recordedSeconds: report.recordedSpan.inSeconds, replaySeconds: report.replaySpan.inSeconds),
            unresolved: report.unresolved,
            requests: report.results.map { result in
                Request(
                    number: result.number, method: result.method, url: result.url,
                    recordedStatus: result.recordedStatus,
                    status: result.status, outcome: result.outcome, differences: result.differences,
                    error: result.error,
                    sentAfterSeconds: result.sentAfter.inSeconds, durationSeconds: result.duration.inSeconds)
            })
        return ReportJSON.text(document, what: "a replay report")
    }

    /// `1.234 s`.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = Int((duration.inSeconds * 1000).rounded())
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) s"
    }

    /// `1`, `2`, `0.5`: no trailing zeros.
    static func speedText(_ speed: Double) -> String {
        speed == speed.rounded() && abs(speed) < 1e15 ? String(Int(speed)) : String(speed)
    }

    private struct Document: Encodable {
        let capture: String
        let target: String
        let speed: Double
        let passed: Bool
        let summary: Summary
        let timing: Timing
        let unresolved: [String]
        let requests: [Request]
    }

    private struct Summary: Encodable {
        let requests, connections, same, different, failed, skipped, differences, allowed: Int
    }

    private struct Timing: Encodable {
        let recordedSeconds: Double
        let replaySeconds: Double

        enum CodingKeys: String, CodingKey {
            case recordedSeconds = "recorded_seconds"
            case replaySeconds = "replay_seconds"
        }
    }

    private struct Request: Encodable {
        let number: Int
        let method: String
        let url: String
        let recordedStatus: Int?
        let status: Int?
        let outcome: ReplayResult.Outcome
        let differences: [ResponseDifference]
        let error: String?
        let sentAfterSeconds: Double
        let durationSeconds: Double

        enum CodingKeys: String, CodingKey {
            case number, method, url, status, outcome, differences, error
            case recordedStatus = "recorded_status"
            case sentAfterSeconds = "sent_after_seconds"
            case durationSeconds = "duration_seconds"
        }
    }
}
