import FaultlineContract
import FaultlineRules
import Foundation
import Testing

@testable import FaultlineDemo

/// The demo carries its rule files and contract as text so the binary needs nothing else; these
/// tests keep that text equal to the documented files in the repository's Rules/ folder.
@Suite struct DemoRulesTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private func text(_ path: String) throws -> String {
        try String(contentsOf: Self.repository.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func demoContractIsTheDocumentedOne() throws {
        let (demo, demoErrors) = ContractLoader.load(text: DemoRules.contract, file: "demo")
        let (documented, errors) = ContractLoader.load(
            text: try text("Rules/contracts/session.contract.json5"), file: "doc")
        #expect(demoErrors.isEmpty && errors.isEmpty)
        #expect(demo == documented)
    }

    @Test func demoProfileIsTheDocumentedOne() throws {
        var (demo, demoErrors) = RuleSetLoader.loadProfile(text: DemoRules.profile, file: "auth-profile.json5")
        let (documented, errors) = RuleSetLoader.loadProfile(
            text: try text("Rules/auth-profile.json5"), file: "auth-profile.json5")
        #expect(demoErrors.isEmpty && errors.isEmpty)
        demo?.file = documented?.file ?? ""
        #expect(demo == documented)
    }

    @Test(arguments: DemoScenario.allCases)
    func everyScenarioRuleFileLoads(_ scenario: DemoScenario) {
        let (profile, _) = RuleSetLoader.loadProfile(text: DemoRules.profile, file: "auth-profile.json5")
        for (name, text) in scenario.ruleFiles {
            let (_, errors) = RuleSetLoader.loadScenario(text: text, file: name, profile: profile)
            #expect(errors.isEmpty, "\(name): \(errors)")
        }
    }
}
