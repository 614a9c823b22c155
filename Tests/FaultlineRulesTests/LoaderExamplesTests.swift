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

    /// Rules/README.md's auth-profile example is the profile these tests load as `ReadmeProfile`,
    /// so the documented one (a list-valued `logout`, `revoke`) is the one the tests exercise.
    @Test func theReadmeProfileExampleIsTheTestedOne() throws {
        let readme = try String(contentsOfFile: Self.rulesFolder + "/README.md", encoding: .utf8)
        let section = try #require(readme.range(of: "## The auth profile"))
        let rest = readme[section.upperBound...]
        let open = try #require(rest.range(of: "```json5\n"))
        let close = try #require(rest[open.upperBound...].range(of: "```"))
        let (profile, errors) = RuleSetLoader.loadProfile(
            text: String(rest[open.upperBound..<close.lowerBound]), file: "auth-profile.json5")
        #expect(errors.map(\.description) == [])
        #expect(profile == ReadmeProfile.model(file: "auth-profile.json5"))
    }
}
