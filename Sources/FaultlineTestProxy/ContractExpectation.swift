import FaultlineCapture
package import FaultlineContract
import FaultlineTrace
package import Foundation

/// The verdict of `expectContractHolds()` / `assertContractHolds()` before a test framework
/// records it: the report, the enabled clauses that could not run and were not accepted as
/// unchecked, and, when the test must fail, the message and the files it names (the trace, and
/// the HTML report with a timeline picture per violation beside it).
///
/// A clause skipped for missing data fails by default: a client that breaks the contract passes
/// silently when the trace gives a clause nothing to judge (no auth profile loaded, no login
/// seen). A test that means it lists the clause in `acceptingUnchecked`. A clause the contract
/// declares nothing for (no callbacks, no pipeline steps) has nothing to break and does not fail
/// the test; the report still lists it as not checked.
package struct ContractExpectation: Sendable {
    /// The environment variable naming the folder failing traces are written to (a CI artifact
    /// folder); unset, they go to `faultline-traces` in the temporary directory.
    package static let artifactsVariable = "FAULTLINE_ARTIFACTS"

    package let report: ContractReport
    /// Enabled clauses skipped for lack of data that the test did not accept as unchecked.
    package let unchecked: [ContractReport.SkippedClause]
    /// Where the trace was written (only when the expectation failed and writing worked).
    package let traceFile: URL?
    /// The HTML report (`faultline check --format html`) written beside the trace, under the same
    /// name with `.html`: one timeline picture per violation.
    package let reportFile: URL?
    /// The test's traffic as HAR 1.2 (`faultline har export`), beside the trace with `.har`, for
    /// HAR viewers and the replay.
    package let harFile: URL?
    /// What to record as the test's failure; nil when the expectation holds.
    package let failureMessage: String?

    /// Judges `report` on `trace` (JSON Lines). On failure writes the trace to a file named after
    /// `label` (the test) and builds the message: the report with its `seq` numbers, the
    /// unchecked clauses with their reasons, and the trace file's path.
    package init(
        report: ContractReport, acceptingUnchecked accepted: Set<ClauseID>, trace: String, label: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.report = report
        unchecked = report.clausesSkipped.filter { $0.cause == .missingData && !accepted.contains($0.clause) }
        guard !report.passed || !unchecked.isEmpty else {
            traceFile = nil
            reportFile = nil
            harFile = nil
            failureMessage = nil
            return
        }
        var fileLines: [String] = []
        do {
            let file = try Self.write(trace, label: label, environment: environment)
            traceFile = file
            reportFile = try? Self.writeReport(report, beside: file)
            harFile = try? Self.writeHAR(trace, beside: file)
            if let reportFile { fileLines.append("report: \(reportFile.path)") }
            if let harFile { fileLines.append("har: \(harFile.path)") }
            fileLines.append("trace: \(file.path)")
        } catch {
            traceFile = nil
            reportFile = nil
            harFile = nil
            fileLines.append("trace: not written (\(error))")
        }
        var lines: [String] = []
        if report.passed {
            let names = unchecked.map(\.clause.rawValue).joined(separator: ", ")
            lines.append("FAILED: the contract was not checked in full; not checked: \(names)")
        }
        lines.append(ReportFormatter.text(report, traceName: traceFile?.path ?? "TestProxy trace"))
        if !unchecked.isEmpty {
            lines.append("not checked, so not passed (list a clause in acceptingUnchecked: to accept it):")
            lines += unchecked.map { "  - \($0.clause.rawValue): \($0.reason)" }
        }
        lines += fileLines
        failureMessage = lines.joined(separator: "\n")
    }

    /// Writes `trace` to `<folder>/<label>-<8 hex>.jsonl` and returns the file: the folder is
    /// `$FAULTLINE_ARTIFACTS` (made if missing), else `faultline-traces` in the temporary directory.
    static func write(_ trace: String, label: String, environment: [String: String]) throws -> URL {
        let folder: URL
        if let artifacts = environment[artifactsVariable], !artifacts.isEmpty {
            folder = URL(fileURLWithPath: artifacts, isDirectory: true)
        } else {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "faultline-traces", isDirectory: true)
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let unique = UUID().uuidString.prefix(8).lowercased()
        let file = folder.appendingPathComponent("\(fileName(label))-\(unique).jsonl")
        try Data(trace.utf8).write(to: file, options: .atomic)
        return file
    }

    /// Writes the HTML report for `report` beside `traceFile` (same name, `.html`), its request bars
    /// ending where the trace says.
    static func writeReport(_ report: ContractReport, beside traceFile: URL) throws -> URL {
        let spans =
            (try? TraceFileReader.requestSpans(path: traceFile.path, requests: report.witnessRequestSeqs)) ?? [:]
        let file = traceFile.deletingPathExtension().appendingPathExtension("html")
        let page = ReportFormatter.html(report, traceName: traceFile.lastPathComponent, spans: spans)
        try Data(page.utf8).write(to: file, options: .atomic)
        return file
    }

    /// Writes the exchanges of `trace` as HAR beside `traceFile` (same name, `.har`).
    static func writeHAR(_ trace: String, beside traceFile: URL) throws -> URL {
        let file = traceFile.deletingPathExtension().appendingPathExtension("har")
        try Data(TestProxy.har(fromTrace: trace)).write(to: file, options: .atomic)
        return file
    }

    /// `label` with everything but letters, digits, `-`, `_` and `.` turned into `-`, at most 80
    /// long, without trailing `-` (a Swift Testing name ends in `()`).
    package static func fileName(_ label: String) -> String {
        let safe = label.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar))
                ? Character(scalar) : "-"
        }
        var name = Substring(String(safe.prefix(80)))
        while name.hasSuffix("-") { name = name.dropLast() }
        return name.isEmpty ? "trace" : String(name)
    }
}

extension TestProxy {
    /// Checks the trace so far and judges it as the test expectations do (see `ContractExpectation`).
    package func expectation(
        _ contract: Contract, acceptingUnchecked accepted: Set<ClauseID>, label: String
    ) throws -> ContractExpectation {
        ContractExpectation(
            report: try checkContract(contract), acceptingUnchecked: accepted, trace: traceText, label: label)
    }
}
