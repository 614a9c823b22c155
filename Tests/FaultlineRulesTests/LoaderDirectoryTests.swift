import FaultlineConfig
import Foundation
import Testing

@testable import FaultlineRules

@Suite struct LoaderDirectoryTests {
    func at(_ file: String, _ line: Int, _ column: Int) -> FaultlineConfig.SourceLocation {
        FaultlineConfig.SourceLocation(file: file, line: line, column: column)
    }

    @Test func loadsEveryScenarioAndTheProfileInNameOrder() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.write(
            "b-second.json5",
            "{ rules: [{ name: 'cb', match: { role: 'callback' }, actions: [{ respond: { status: 200, bodyFile: 'ok.txt' } }] }] }"
        )
        try folder.write(
            "a-first.json5",
            "{ scenario: 'first', scope: 'lineage', rules: [{ name: 'x', when: { after: 'login.delivered' } }] }")
        try folder.write(RuleSetLoader.profileFileName, ReadmeProfile.text)
        try folder.write("ok.txt", "fine")
        try folder.write("README.md", "not rules")
        try folder.write(".#a-first.json5", "editor lock file")
        try FileManager.default.createDirectory(atPath: folder.path + "/nested", withIntermediateDirectories: false)
        try folder.write("nested/ignored.json5", "{ broken")

        let report = RuleSetLoader.load(directory: folder.path + "/")
        #expect(report.errors == [])
        #expect(report.isValid)
        #expect(
            report.files == ["a-first.json5", "auth-profile.json5", "b-second.json5"].map { folder.path + "/" + $0 })
        #expect(report.ruleSet.profile == ReadmeProfile.model(file: folder.path + "/auth-profile.json5"))
        #expect(report.ruleSet.scenarios.map(\.name) == ["first", "b-second"])
        #expect(
            report.ruleSet.scenarios.map(\.file) == [folder.path + "/a-first.json5", folder.path + "/b-second.json5"])
        #expect(report.ruleSet.scenarios[0].scope == .lineage)
        #expect(
            report.ruleSet.scenarios[1].rules[0].actions == [
                .respond(SyntheticResponse(status: 200, body: Array("fine".utf8)))
            ])
        #expect(report.ruleSet.scenarios[1].rules[0].location == at(folder.path + "/b-second.json5", 1, 11))
    }

    @Test func aBadFileDoesNotStopTheGoodOnes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.write("1-good.json5", "{ rules: [{ name: 'a' }] }")
        try folder.write("2-bad.json5", "{\n  rules: [{ name: 'b', mathc: {} }],\n}")
        try folder.write("3-broken.json5", "{ rules: [")
        try folder.write("4-good.json5", "{ rules: [{ name: 'c' }] }")
        try folder.write(
            "5-bytes.json5", bytes: Array("{ rules: [], description: '".utf8) + [0xC3, 0x28] + Array("' }".utf8))

        let report = RuleSetLoader.load(directory: folder.path)
        #expect(report.ruleSet.scenarios.map(\.name) == ["1-good", "4-good"])
        #expect(
            report.errors == [
                ConfigError(
                    "unknown key 'mathc' in rule 'b' (did you mean 'match'?)",
                    at: at(folder.path + "/2-bad.json5", 2, 24)),
                ConfigError(
                    "expected an array element or ']', found the end of the file (the array opened at 1:10 is not closed)",
                    at: at(folder.path + "/3-broken.json5", 1, 11)),
                ConfigError(
                    "invalid UTF-8 (byte 0xC3); the file must be UTF-8 text",
                    at: at(folder.path + "/5-bytes.json5", 1, 28)),
            ])
        #expect(!report.isValid)
    }

    @Test func scenarioNamesAreUniqueAcrossTheFolder() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.write("a.json5", "{ rules: [] }")
        try folder.write("b.json5", "{\n  scenario: 'a', rules: [] }")
        try folder.write("c.json5", "{ scenario: 'd', rules: [] }")
        try folder.write("d.json5", "{ rules: [] }")
        try folder.write("e.json5", "{ rulez: 1,\n  scenario: 'a', rules: [], seed: -1 }")

        let report = RuleSetLoader.load(directory: folder.path)
        #expect(
            report.errors == [
                ConfigError(
                    "scenario 'a' is already defined in \(folder.path)/a.json5", at: at(folder.path + "/b.json5", 2, 3)),
                ConfigError(
                    "scenario 'd' is already defined in \(folder.path)/c.json5", at: at(folder.path + "/d.json5", 1, 1)),
                ConfigError(
                    "unknown key 'rulez' in the scenario (did you mean 'rules'?)",
                    at: at(folder.path + "/e.json5", 1, 3)),
                ConfigError(
                    "scenario 'a' is already defined in \(folder.path)/a.json5", at: at(folder.path + "/e.json5", 2, 3)),
                ConfigError(
                    "'seed' must be an integer from 0 to 9007199254740991, found -1",
                    at: at(folder.path + "/e.json5", 2, 35)),
            ])
        #expect(report.ruleSet.scenarios.map(\.name) == ["a", "d"])
        #expect(report.ruleSet.scenarios.map(\.file) == [folder.path + "/a.json5", folder.path + "/c.json5"])
    }

    @Test func rolesAreCheckedAgainstTheFoldersProfile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.write(
            RuleSetLoader.profileFileName, "{ login: { path: '/login' }, roles: { callback: { path: '/cb' } } }")
        try folder.write(
            "s.json5", "{ rules: [{ name: 'a', match: { role: 'calback' }, when: { after: 'refresh.received' } }] }")

        let report = RuleSetLoader.load(directory: folder.path)
        let file = folder.path + "/s.json5"
        #expect(
            report.errors == [
                ConfigError(
                    "unknown role 'calback' (did you mean 'callback'?); the known roles are 'login', 'callback', 'business'",
                    at: at(file, 1, 39)),
                ConfigError(
                    "role 'refresh' is not defined in the auth profile (\(folder.path)/auth-profile.json5) (in event 'refresh.received')",
                    at: at(file, 1, 67)),
            ])
        #expect(report.ruleSet.profile != nil)
        #expect(report.ruleSet.scenarios.isEmpty)
    }

    @Test func lineageScopeNeedsAProfileInTheFolder() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.write("s.json5", "{ scope: 'lineage', rules: [] }")
        let report = RuleSetLoader.load(directory: folder.path)
        #expect(
            report.errors == [
                ConfigError(
                    #"scope "lineage" needs an auth profile to follow credential lineages: add auth-profile.json5 to the rules folder"#,
                    at: at(folder.path + "/s.json5", 1, 10))
            ])
    }

    @Test func aBrokenProfileIsReportedOnceNotInEveryScenario() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.write(RuleSetLoader.profileFileName, "{ roles: { callback: { pth: '/cb' } } }")
        try folder.write(
            "s.json5",
            "{ scope: 'lineage', rules: [{ name: 'a', match: { role: 'callback' }, when: { after: 'callback.delivered' } }] }"
        )
        let report = RuleSetLoader.load(directory: folder.path)
        #expect(
            report.errors == [
                ConfigError(
                    "unknown key 'pth' in role 'callback' (did you mean 'path'?)",
                    at: at(folder.path + "/auth-profile.json5", 1, 24))
            ])
        #expect(report.ruleSet.profile == nil)
        #expect(report.ruleSet.scenarios.map(\.name) == ["s"])
    }

    /// An unreadable folder or file has no line or column to point at: the error names the path
    /// alone (`nodir: cannot read the rules folder: …`, not `nodir:1:1: …`).
    @Test func unreadableFoldersAndFilesAreErrorsAtThePathItself() throws {
        let missing = "/nonexistent-faultline-\(UUID().uuidString)"
        let report = RuleSetLoader.load(directory: missing)
        #expect(
            report.errors == [
                ConfigError("cannot read the rules folder: No such file or directory", at: .whole(missing))
            ])
        #expect(report.ruleSet == .empty)
        #expect(report.files == [])
        #expect(
            report.errors.first?.description == "\(missing): cannot read the rules folder: No such file or directory")

        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.path + "/dir.json5", withIntermediateDirectories: false)
        try folder.write("ok.json5", "{ rules: [] }")
        let mixed = RuleSetLoader.load(directory: folder.path)
        #expect(
            mixed.errors == [
                ConfigError("cannot read the file: not a regular file", at: .whole(folder.path + "/dir.json5"))
            ])
        #expect(mixed.ruleSet.scenarios.map(\.name) == ["ok"])
        #expect(mixed.files == [folder.path + "/dir.json5", folder.path + "/ok.json5"])

        let fileAsFolder = RuleSetLoader.load(directory: folder.path + "/ok.json5")
        #expect(
            fileAsFolder.errors == [
                ConfigError("cannot read the rules folder: Not a directory", at: .whole(folder.path + "/ok.json5"))
            ])
    }

    @Test func anEmptyFolderIsAnEmptyRuleSet() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let report = RuleSetLoader.load(directory: folder.path)
        #expect(report.errors == [])
        #expect(report.ruleSet == .empty)
    }
}

/// `RuleSetLoader.signature`, what the rules watcher polls to decide whether to reload.
@Suite struct LoaderSignatureTests {
    @Test func changesWhenARuleFileIsAddedWrittenOrRemovedAndOnlyThen() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.write("a.json5", "{ rules: [] }")
        let first = RuleSetLoader.signature(of: folder.path)
        #expect(first.hasPrefix("a.json5:13:"))
        #expect(RuleSetLoader.signature(of: folder.path) == first)

        try folder.write("notes.txt", "not a rule file")
        #expect(RuleSetLoader.signature(of: folder.path) == first)

        // The same size, a later modification time: an edit that only the time shows.
        try folder.write("a.json5", "{ rules: [ ]}")
        let later = Date(timeIntervalSince1970: 2_000_000_000.5)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: folder.path + "/a.json5")
        let written = RuleSetLoader.signature(of: folder.path)
        #expect(written != first)
        #expect(written.hasPrefix("a.json5:13:2000000000."))

        try folder.write("b.json5", "{ rules: [] }")
        let added = RuleSetLoader.signature(of: folder.path)
        #expect(added.hasPrefix(written + "|b.json5:13:"))

        try FileManager.default.removeItem(atPath: folder.path + "/b.json5")
        #expect(RuleSetLoader.signature(of: folder.path) == written)
    }

    @Test func aFolderThatCannotBeReadHasItsOwnSignature() {
        #expect(RuleSetLoader.signature(of: "/nonexistent/faultline-rules") == "unreadable")
    }
}
