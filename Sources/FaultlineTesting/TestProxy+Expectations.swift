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
    /// beside it the HTML report with a timeline picture per violation, which is also attached to
    /// the test (a Swift Testing attachment).
    /// Returns the report either way.
    @discardableResult
    public func expectContractHolds(
        _ contract: Contract = .default, acceptingUnchecked: Set<ClauseID> = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ContractReport {
        let label = Test.current?.name ?? "\(sourceLocation.fileName)-\(sourceLocation.line)"
        let verdict = try expectation(contract, acceptingUnchecked: acceptingUnchecked, label: label)
        if let message = verdict.failureMessage {
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
            // Swift Testing keeps attachments with the test's result (and exports them with
            // `swift test --attachments-path`), so the picture travels with a CI run.
            if let reportFile = verdict.reportFile, let page = try? Data(contentsOf: reportFile) {
                Attachment.record(Array(page), named: reportFile.lastPathComponent, sourceLocation: sourceLocation)
            }
        }
        return verdict.report
    }

    /// The XCTest twin of ``expectContractHolds(_:acceptingUnchecked:sourceLocation:)``: fails the
    /// current test with the same message, on the same conditions; where XCTest has attachments
    /// (Apple platforms) the HTML report is attached too.
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
            if let reportFile = verdict.reportFile {
                XCTContext.runActivity(named: "Contract report") { activity in
                    activity.add(XCTAttachment(contentsOfFile: reportFile))
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
