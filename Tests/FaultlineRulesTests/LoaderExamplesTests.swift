import FaultlineConfig
import Foundation
import Testing

@testable import FaultlineRules

/// The example rule files shipped in the repository's `Rules/` folder must always load.
@Suite struct LoaderExamplesTests {
    /// `<repository>/Rules`, found from this file's path (Tests/FaultlineRulesTests/<file>).
    static var rulesFolder: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Rules").path
    }

    @Test func everyExampleLoadsWithoutErrors() {
        let report = RuleSetLoader.load(directory: Self.rulesFolder)
        // Descriptions, so a failure prints `file:line:column: message` for each problem.
        #expect(report.errors.map(\.description) == [])
        let profileFiles = report.ruleSet.profile == nil ? 0 : 1
        #expect(report.ruleSet.scenarios.count + profileFiles == report.files.count, "every file contributes")
    }
}
