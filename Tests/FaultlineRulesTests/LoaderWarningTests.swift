import FaultlineConfig
import Testing

@testable import FaultlineRules

/// Without an auth profile every request is `business`: a rule that matches on that role, or
/// waits for one of its events, loads but applies to every request, login included. The loader
/// says so as a warning that `rules check`, the proxy's start and its reloads print.
@Suite struct LoaderWarningTests {
    static let scenario = """
        {
          rules: [
            { name: "expire", match: { role: "business" }, actions: [{ respond: { status: 401 } }] },
            { name: "late", match: { path: "/x" }, when: { after: "business.delivered" } },
            { name: "plain", match: { path: "/y" } },
          ],
        }
        """

    @Test func aRoleRuleWithoutAProfileIsAWarningAtTheRole() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.write("s.json5", Self.scenario)
        let report = RuleSetLoader.load(directory: folder.path)
        let file = folder.path + "/s.json5"
        #expect(report.errors == [])
        #expect(report.ruleSet.scenarios.map(\.rules.count) == [3], "a warning does not stop the file from loading")
        let tail =
            "without an auth profile every request is 'business', login and logout included; "
            + "add auth-profile.json5 to the rules folder"
        #expect(
            report.warnings == [
                ConfigError(
                    #"'role: "business"' matches every request: "# + tail,
                    at: SourceLocation(file: file, line: 3, column: 38)),
                ConfigError(
                    "event 'business.delivered' is reached by every request: " + tail,
                    at: SourceLocation(file: file, line: 4, column: 59)),
            ])
        #expect(
            report.warningLines.first == "\(file):3:38: warning: 'role: \"business\"' matches every request: \(tail)")
    }

    @Test func withAProfileThereIsNothingToWarnAbout() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.write("s.json5", Self.scenario)
        try folder.write(RuleSetLoader.profileFileName, ReadmeProfile.text)
        let report = RuleSetLoader.load(directory: folder.path)
        #expect(report.errors == [] && report.warnings == [])
        // A broken profile reports its own errors, not warnings in every scenario.
        try folder.write(RuleSetLoader.profileFileName, "{ logn: {} }")
        let broken = RuleSetLoader.load(directory: folder.path)
        #expect(broken.errors.count == 1 && broken.warnings == [])
    }

    @Test func warningsOfAFileWithErrorsAreStillReported() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.write("s.json5", "{ rules: [{ name: 'a', match: { role: 'business', pth: '/x' } }] }")
        let report = RuleSetLoader.load(directory: folder.path)
        #expect(report.errors.map(\.message) == ["unknown key 'pth' in 'match' of rule 'a' (did you mean 'path'?)"])
        #expect(report.warnings.map(\.location.column) == [39])
    }
}
