public import FaultlineContract
import FaultlineTrace
public import Testing
import XCTest

extension TestProxy {
    /// Fails the current Swift Testing test with the readable report when the contract is broken.
    /// Returns the report either way.
    @discardableResult
    public func expectContractHolds(
        _ contract: Contract = .default, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ContractReport {
        let report = try checkContract(contract)
        if !report.passed {
            Issue.record(Comment(rawValue: ReportFormatter.text(report, traceName: "TestProxy trace")), sourceLocation: sourceLocation)
        }
        return report
    }

    /// Fails the current XCTest test with the readable report when the contract is broken.
    @discardableResult
    public func assertContractHolds(
        _ contract: Contract = .default, file: StaticString = #filePath, line: UInt = #line
    ) throws -> ContractReport {
        let report = try checkContract(contract)
        if !report.passed { XCTFail(ReportFormatter.text(report, traceName: "TestProxy trace"), file: file, line: line) }
        return report
    }
}
