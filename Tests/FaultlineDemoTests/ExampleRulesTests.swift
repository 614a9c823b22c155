import FaultlineBackend
import FaultlineContract
import FaultlineTestProxy
import Foundation
import Testing

@testable import FaultlineDemo

/// The example rule files in Rules/ model what they document: the demo's correct client, run
/// through each example switched on (with the example auth profile, in front of the reference
/// backend), finishes an everyday session with every call answered as a real backend would
/// answer it, and the trace holds the session contract. Issue 20: `force-401-first-business`
/// counted the first three business requests of the whole run, so the retry after a successful
/// refresh got a 401 again and a correct client's call failed.
@Suite(.serialized) struct ExampleRulesTests {
    static let rules = DemoRulesTests.repository.appendingPathComponent("Rules")

    /// Every scenario file of Rules/ (the profile is added to each).
    static let scenarios: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: rules.path)) ?? []
        return names.filter { $0.hasSuffix(".json5") && $0 != "auth-profile.json5" }.sorted()
    }()

    /// The file's text with its scenario switched on: examples that are off by default say
    /// `enabled: false` once, at the top level (two spaces in), which `Tests/Integration`'s
    /// test_rules_examples.py checks for every example.
    static func switchedOn(_ name: String) throws -> String {
        let text = try String(contentsOf: rules.appendingPathComponent(name), encoding: .utf8)
        return text.replacingOccurrences(of: "\n  enabled: false,", with: "\n  enabled: true,")
    }

    @Test func everyExampleIsHere() {
        #expect(Self.scenarios.count >= 9, "\(Self.scenarios)")
        #expect(Self.scenarios.contains("force-401-first-business.json5"))
    }

    @Test(arguments: scenarios)
    func theCorrectClientGetsThroughAnEverydaySession(_ scenario: String) async throws {
        let backend = ReferenceBackend()
        try backend.start()
        defer { backend.stop() }
        let profile = try String(contentsOf: Self.rules.appendingPathComponent("auth-profile.json5"), encoding: .utf8)
        let proxy = try TestProxy.start(
            upstream: URL(string: "http://\(backend.address!)")!,
            rules: .files(["auth-profile.json5": profile, scenario: try Self.switchedOn(scenario)]))
        defer { proxy.stop() }

        let client = ReferenceClient(baseURL: proxy.baseURL!)
        let ann = try await client.signIn("ann")
        var answers: [String] = []
        for path in ["/v1/messages", "/v1/me", "/v1/messages"] {
            answers.append("GET \(path) → \(try await ann.call("GET", path))")
        }
        let note = Data(#"{"text":"buy milk"}"#.utf8)
        answers.append("POST /v1/notes → \(try await ann.call("POST", "/v1/notes", json: note))")
        let job = try await ann.runJob()
        try await ann.logout()

        #expect(
            answers == [
                "GET /v1/messages → 200", "GET /v1/me → 200", "GET /v1/messages → 200", "POST /v1/notes → 201",
            ], "\(scenario): \(answers)")
        #expect(job.steps.values.allSatisfy { $0 == .succeeded }, "\(scenario): \(job.steps)")
        let (contract, errors) = ContractLoader.load(
            text: DemoRunner.contractFile.text, file: DemoRunner.contractFile.name)
        #expect(errors.isEmpty)
        let report = try proxy.checkContract(try #require(contract))
        #expect(report.passed, "\(scenario):\n\(ReportFormatter.text(report, traceName: scenario))")
    }
}
