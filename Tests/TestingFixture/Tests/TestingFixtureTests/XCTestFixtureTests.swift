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
        for prefix in ["trace: /", "report: /", "har: /"] {
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

    /// `Faultline.withXCTestScope`, the trait's XCTest counterpart: a backend and a proxy for
    /// the body, the contract asserted when it returns, both stopped after.
    func testTheScopeRunsARaceAndStopsTheProxy() async throws {
        var seen: Faultline?
        try await Faultline.withXCTestScope(Faultline.Configuration(rules: try FixtureRules.withProfile())) {
            faultline in
            seen = faultline
            XCTAssertTrue(Faultline.current != nil)
            let client = Client(baseURL: faultline.baseURL)
            let first = try await client.login()
            let expired = try await client.me(first)
            XCTAssertEqual(expired, 401)
            async let refreshed = client.refresh(first)
            let released = try await faultline.proxy.waitForHold("refresh-response").release()
            XCTAssertTrue(released)
            let second = try await refreshed
            let afterRefresh = try await client.me(second)
            XCTAssertEqual(afterRefresh, 200)
            let logout = try await client.logout(second)
            XCTAssertEqual(logout, 204)
        }
        XCTAssertEqual(seen?.proxy.server.boundAddresses.isEmpty, true, "the proxy still listens")
        XCTAssertNil(seen?.backend?.address, "the backend still listens")
    }
}
