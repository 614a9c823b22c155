import FaultlineTesting
import Foundation
import XCTest

/// The XCTest side: `assertContractHolds()` fails a test whose trace left a clause unchecked.
/// The failure is captured (swift-corelibs-xctest has no `XCTExpectFailure`), checked, and kept
/// from failing the run.
final class XCTestFixtureTests: XCTestCase {
    private var captured: [String] = []
    private var capturing = false

    #if canImport(Darwin)
    override func record(_ issue: XCTIssue) {
        if capturing { captured.append(issue.compactDescription) } else { super.record(issue) }
    }
    #else
    override func recordFailure(
        withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
    ) {
        if capturing {
            captured.append(description)
        } else {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }
    #endif

    func testASkippedClauseFailsAssertContractHolds() throws {
        let proxy = try TestProxy.start()
        defer { proxy.stop() }
        proxy.mark("nothing happened")
        capturing = true
        let report = try proxy.assertContractHolds()
        capturing = false
        XCTAssertTrue(report.passed, "no violation: only the unchecked clauses fail it")
        XCTAssertEqual(captured.count, 1)
        XCTAssertTrue(captured.first?.contains("logout-boundary:") == true, captured.first ?? "nothing recorded")
        for prefix in ["trace: /", "report: /"] {
            if let line = captured.first?.split(separator: "\n").last(where: { $0.hasPrefix(prefix) }) {
                let path = String(line.dropFirst(prefix.count - 1))
                XCTAssertTrue(FileManager.default.fileExists(atPath: path), path)
                try? FileManager.default.removeItem(atPath: path)
            } else {
                XCTFail("the failure names no \(prefix.dropLast(3)) file")
            }
        }
        XCTAssertNoThrow(try proxy.assertContractHolds(acceptingUnchecked: Set(report.clausesSkipped.map(\.clause))))
    }
}
