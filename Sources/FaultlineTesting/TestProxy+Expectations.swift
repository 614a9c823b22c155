public import FaultlineContract
public import FaultlineTestProxy
public import Testing
import XCTest

extension TestProxy {
    /// Fails the current Swift Testing test when the contract is broken, or when an enabled clause
    /// could not be checked (no auth profile, no login seen) and is not in `acceptingUnchecked`.
    /// The failure carries the readable report, the unchecked clauses with the missing data, and
    /// the path of the trace file it wrote, which the report's `seq` numbers point into (the
    /// folder `$FAULTLINE_ARTIFACTS`, else `faultline-traces` in the temporary directory).
    /// Returns the report either way.
    @discardableResult
    public func expectContractHolds(
        _ contract: Contract = .default, acceptingUnchecked: Set<ClauseID> = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ContractReport {
        let label = Test.current?.name ?? "\(sourceLocation.fileName)-\(sourceLocation.line)"
        let verdict = try expectation(contract, acceptingUnchecked: acceptingUnchecked, label: label)
        if let message = verdict.failureMessage { Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation) }
        return verdict.report
    }

    /// The XCTest twin of ``expectContractHolds(_:acceptingUnchecked:sourceLocation:)``: fails the
    /// current test with the same message, on the same conditions.
    @discardableResult
    public func assertContractHolds(
        _ contract: Contract = .default, acceptingUnchecked: Set<ClauseID> = [], file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> ContractReport {
        let name = "\(file)".split(separator: "/").last.map(String.init) ?? "test"
        let verdict = try expectation(contract, acceptingUnchecked: acceptingUnchecked, label: "\(name)-\(line)")
        if let message = verdict.failureMessage { XCTFail(message, file: file, line: line) }
        return verdict.report
    }
}
