public import FaultlineContract
import FaultlineExplorer
public import FaultlineTestProxy
import Foundation
public import Testing
import XCTest

extension TestProxy {
    /// Fails the current Swift Testing test when the contract is broken, or when an enabled clause
    /// could not be checked (no auth profile, no login seen) and is not in `acceptingUnchecked`.
    /// The failure carries the readable report, the unchecked clauses with the missing data, and
    /// the paths of the files it wrote (the folder `$FAULTLINE_ARTIFACTS`, else `faultline-traces`
    /// in the temporary directory): the trace, which the report's `seq` numbers point into, and
    /// beside it the HTML report with a timeline picture per violation and a HAR of the traffic
    /// (`har:`). The three are also attached to the test (Swift Testing attachments named after
    /// it, which `swift test --attachments-path DIR` saves).
    /// Returns the report either way.
    @discardableResult
    public func expectContractHolds(
        _ contract: Contract = .default, acceptingUnchecked: Set<ClauseID> = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ContractReport {
        let label = Test.current?.name ?? "\(sourceLocation.fileName)-\(sourceLocation.line)"
        return try expectContractHolds(
            contract, acceptingUnchecked: acceptingUnchecked, label: label, sourceLocation: sourceLocation)
    }

    /// ``expectContractHolds(_:acceptingUnchecked:sourceLocation:)`` with the files and
    /// attachments named after `label`.
    @discardableResult
    func expectContractHolds(
        _ contract: Contract, acceptingUnchecked: Set<ClauseID>, label: String, sourceLocation: SourceLocation
    ) throws -> ContractReport {
        let verdict = try expectation(contract, acceptingUnchecked: acceptingUnchecked, label: label)
        if let message = verdict.failureMessage {
            // Attached first: a `withKnownIssue` matcher may look at the files, even remove them.
            recordAttachments(label: label, reportFile: verdict.reportFile, sourceLocation: sourceLocation)
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        }
        return verdict.report
    }

    /// Records the trace, the HTML report (when there is one) and a HAR of the traffic as
    /// attachments of the current test, named after `label`. Swift Testing keeps attachments
    /// with the test's result and `swift test --attachments-path DIR` saves them, so what a CI
    /// run saw travels with it.
    func recordAttachments(label: String, reportFile: URL?, sourceLocation: SourceLocation) {
        let name = ContractExpectation.fileName(label)
        Attachment.record(Array(traceText.utf8), named: "\(name).jsonl", sourceLocation: sourceLocation)
        if let reportFile, let page = try? Data(contentsOf: reportFile) {
            Attachment.record(Array(page), named: "\(name).html", sourceLocation: sourceLocation)
        }
        if let har = try? har() {
            Attachment.record(har, named: "\(name).har", sourceLocation: sourceLocation)
        }
    }

    /// The XCTest twin of ``expectContractHolds(_:acceptingUnchecked:sourceLocation:)``: fails the
    /// current test with the same message, on the same conditions; where XCTest has attachments
    /// (Apple platforms) the HTML report, the HAR and the trace are attached too.
    @discardableResult
    public func assertContractHolds(
        _ contract: Contract = .default, acceptingUnchecked: Set<ClauseID> = [], file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> ContractReport {
        let name = "\(file)".split(separator: "/").last.map(String.init) ?? "test"
        let verdict = try expectation(contract, acceptingUnchecked: acceptingUnchecked, label: "\(name)-\(line)")
        if let message = verdict.failureMessage {
            XCTFail(message, file: file, line: line)
            #if canImport(Darwin)
            // Apple's XCTest keeps attachments with the result bundle; swift-corelibs-xctest
            // (Linux) has none, and the message's `report:` path is what there is there.
            // `XCTContext.runActivity` is main-actor API: a synchronous test method runs on the
            // main thread; elsewhere (an async test off it) the message's paths are what there is.
            let files = [verdict.reportFile, verdict.harFile, verdict.traceFile].compactMap { $0 }
            if Thread.isMainThread {
                MainActor.assumeIsolated {
                    XCTContext.runActivity(named: "Contract report") { activity in
                        for file in files { activity.add(XCTAttachment(contentsOfFile: file)) }
                    }
                }
            }
            #endif
        }
        return verdict.report
    }
}

extension ExplorationResult {
    /// Fails the current Swift Testing test when a schedule broke the contract (or the exploration
    /// could not run), with the report: each clause's first and shrunk schedule, and the paths
    /// of the kept trace and its HTML timeline, which is also attached to the test.
    public func expectNoContractViolations(sourceLocation: SourceLocation = #_sourceLocation) {
        guard let message = failureMessage else { return }
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        for finding in report.findings {
            let run = finding.shrunk ?? finding.first
            if let html = run.html, let page = FileManager.default.contents(atPath: html) {
                Attachment.record(
                    Array(page), named: URL(fileURLWithPath: html).lastPathComponent, sourceLocation: sourceLocation)
            }
        }
    }

    /// The XCTest twin of ``expectNoContractViolations(sourceLocation:)``.
    public func assertNoContractViolations(file: StaticString = #filePath, line: UInt = #line) {
        guard let message = failureMessage else { return }
        XCTFail(message, file: file, line: line)
    }
}
