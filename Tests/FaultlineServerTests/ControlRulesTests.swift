import FaultlineConfig
import FaultlineServer
import FaultlineTrace
import Foundation
import Testing

/// Rules and scenario state through the control API.
@Suite struct ControlRulesTests {
    @Test func rulesAreListedWithTheirCounters() throws {
        try withControl { harness in
            #expect(try harness.sendThroughProxy("/teapot").readResponse().status == 418)
            let rules = try #require(try harness.call("GET", "/v1/rules").json).elements()
            #expect(rules.compactMap { $0.string("/id") } == ["demo/park", "demo/park-for-mark", "demo/teapot"])
            let teapot = try #require(rules.last)
            #expect(teapot.string("/file") == "demo.json5")
            #expect(teapot.string("/phase") == "request")
            #expect(teapot.bool("/enabled") == true)
            #expect(teapot.int("/hits") == 1)
            #expect(teapot.int("/matches") == 1)
        }
    }

    @Test func disablingARuleChangesWhatTheProxyDoesAndEnablingRestoresIt() throws {
        try withControl { harness in
            #expect(try harness.sendThroughProxy("/teapot").readResponse().status == 418)

            let disabled = try harness.call("POST", "/v1/rules/demo/teapot/disable")
            #expect(disabled.status == 200)
            #expect(disabled.json?.bool("/enabled") == false)
            let forwarded = try harness.sendThroughProxy("/teapot").readResponse()
            #expect(forwarded.status == 200)
            #expect(forwarded.body == "/teapot")

            #expect(try harness.call("POST", "/v1/rules/demo/teapot/enable").json?.bool("/enabled") == true)
            #expect(try harness.sendThroughProxy("/teapot").readResponse().status == 418)

            // The whole scenario off, then on.
            let scenario = try harness.call("POST", "/v1/scenarios/demo/disable")
            #expect(scenario.json?.bool("/enabled") == false)
            #expect(try harness.sendThroughProxy("/teapot").readResponse().status == 200)
            #expect(
                try harness.call("GET", "/v1/rules").json?.elements().allSatisfy { $0.bool("/enabled") == false }
                    == true)
            try harness.call("POST", "/v1/scenarios/demo/enable")
            #expect(try harness.sendThroughProxy("/teapot").readResponse().status == 418)
        }
    }

    @Test func unknownRulesAndScenariosAre404WithTheEnginesSuggestion() throws {
        try withControl { harness in
            let rule = try harness.call("POST", "/v1/rules/demo/teapto/disable")
            #expect(rule.status == 404)
            #expect(rule.errorMessage.contains("unknown rule 'demo/teapto'"))
            #expect(rule.json?.string("/suggestion") == "demo/teapot")
            let scenario = try harness.call("POST", "/v1/scenarios/dmeo/enable")
            #expect(scenario.status == 404)
            #expect(scenario.errorMessage.contains("unknown scenario 'dmeo'"))
        }
    }

    @Test func stateCanBeReadSetAndReset() throws {
        try withControl { harness in
            let initial = try #require(try harness.call("GET", "/v1/state").json)
            #expect(initial.string("/0/scenario") == "demo")
            #expect(initial.string("/0/state") == "started")
            #expect(initial.string("/0/scope") == "global")

            let set = try harness.call("PUT", "/v1/state/demo", json: #"{"state": "loggedOut"}"#)
            #expect(set.status == 200)
            #expect(set.json?.string("/state") == "loggedOut")
            #expect(try harness.call("GET", "/v1/state").json?.string("/0/state") == "loggedOut")

            let undeclared = try harness.call("PUT", "/v1/state/demo", json: #"{"state": "loggedOot"}"#)
            #expect(undeclared.status == 422)
            #expect(undeclared.json?.string("/suggestion") == "loggedOut")
            let lineage = try harness.call("PUT", "/v1/state/demo", json: #"{"state": "started", "lineage": "L1"}"#)
            #expect(lineage.status == 422)
            #expect(lineage.errorMessage.contains("not lineage-scoped"))
            #expect(try harness.call("PUT", "/v1/state/nope", json: #"{"state": "x"}"#).status == 404)
            #expect(try harness.call("PUT", "/v1/state/demo").status == 400)

            let reset = try harness.call("POST", "/v1/state/reset", json: #"{"scenario": "demo"}"#)
            #expect(reset.status == 200)
            #expect(reset.json?.string("/0/state") == "started")
            try harness.call("PUT", "/v1/state/demo", json: #"{"state": "loggedOut"}"#)
            #expect(try harness.call("POST", "/v1/state/reset").json?.string("/0/state") == "started")
            #expect(try harness.call("POST", "/v1/state/reset", json: #"{"scenario": "nope"}"#).status == 404)
        }
    }

    @Test func withoutRulesListsAreEmptyAndChangesAre409() throws {
        try withControl(rules: nil) { harness in
            #expect(try harness.call("GET", "/v1/health").json?.bool("/rules") == false)
            #expect(try harness.call("GET", "/v1/rules").json?.elements().isEmpty == true)
            #expect(try harness.call("GET", "/v1/holds").json?.elements().isEmpty == true)
            #expect(try harness.call("GET", "/v1/state").json?.elements().isEmpty == true)
            for (method, path, body) in [
                ("POST", "/v1/rules/demo/teapot/disable", nil), ("POST", "/v1/scenarios/demo/enable", nil),
                ("POST", "/v1/rules/reload", nil), ("PUT", "/v1/state/demo", #"{"state": "x"}"#),
                ("POST", "/v1/state/reset", nil),
            ] {
                let response = try harness.call(method, path, json: body)
                #expect(response.status == 409, "\(method) \(path)")
                #expect(response.errorMessage.contains("without --rules"))
            }
            // Marks still work: they are trace events first.
            #expect(try harness.call("POST", "/v1/marks", json: #"{"label": "solo"}"#).status == 200)
            #expect(try harness.events().contains { $0.kind == .mark && $0.string("label") == "solo" })
        }
    }

    @Test func reloadWithABadFileIs422AndTheLastGoodRulesKeepRunning() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.write("demo.json5", ControlHarness.scenario)
        try withControl(rulesDirectory: folder.path) { harness in
            #expect(try harness.sendThroughProxy("/teapot").readResponse().status == 418)

            try folder.write(
                "demo.json5", ControlHarness.scenario.replacingOccurrences(of: "status: 418", with: "status: \"418\""))
            let rejected = try harness.call("POST", "/v1/rules/reload")
            #expect(rejected.status == 422)
            #expect(rejected.json?.bool("/reloaded") == false)
            let error = try #require(rejected.json?.string("/errors/0"))
            #expect(error.hasPrefix("\(folder.path)/demo.json5:"))
            #expect(error.contains("'status' must be"))
            #expect(try harness.sendThroughProxy("/teapot").readResponse().status == 418, "old rules still run")
            #expect(try harness.events().contains { $0.kind == "rules.rejected" })

            try folder.write(
                "demo.json5", ControlHarness.scenario.replacingOccurrences(of: "status: 418", with: "status: 451"))
            let reloaded = try harness.call("POST", "/v1/rules/reload")
            #expect(reloaded.status == 200)
            #expect(reloaded.json?.bool("/reloaded") == true)
            #expect(reloaded.json?.int("/scenarios") == 1)
            #expect(try harness.sendThroughProxy("/teapot").readResponse().status == 451)
        }
    }

    @Test func reloadOfRulesBuiltInCodeIs409() throws {
        try withControl { harness in
            let response = try harness.call("POST", "/v1/rules/reload")
            #expect(response.status == 409)
            #expect(response.errorMessage.contains("not loaded from a folder"))
        }
    }
}

/// A private folder under the system's temporary directory, removed by `remove()`.
struct TemporaryFolder {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/faultline-control-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw HarnessError("mkdtemp failed")
        }
        path = String(cString: made)
    }

    func write(_ name: String, _ text: String) throws {
        try text.write(toFile: path + "/" + name, atomically: true, encoding: .utf8)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
