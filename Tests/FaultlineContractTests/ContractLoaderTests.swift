import FaultlineConfig
import FaultlineContract
import Foundation
import Testing

/// Contract files: what they declare, and errors as file:line:column with suggestions.
@Suite struct ContractLoaderTests {
    static func load(_ text: String) -> (Contract?, [String]) {
        let (contract, errors) = ContractLoader.load(text: text, file: "c.json5")
        return (contract, errors.map(\.description))
    }

    @Test func everythingDeclaredIsRead() throws {
        let (contract, errors) = Self.load(
            """
            // A pipeline contract.
            {
              $schema: "./faultline-contract.schema.json",
              description: "jobs",
              clauses: { "exactly-once": true, "replay-safe-retry": false },
              retryIdentity: { header: "X-Request-ID" },
              steps: [
                { name: "download", match: { method: ["POST", "PUT"], path: "/jobs/{job}/download", host: "API.test" } },
                { name: "write", match: { path: "/v2/{tenant}/jobs/{job}/write" }, key: "job" },
              ],
              dependencies: [{ step: "write", needs: "download" }],
              cancel: { mark: "cancel", key: "job" },
              commit: "write",
              callbacks: [{ name: "done", match: { method: "POST", path: "/jobs/{job}/complete" }, required: [42], after: "write" }],
            }
            """)
        #expect(errors.isEmpty, "\(errors)")
        let loaded = try #require(contract)
        #expect(loaded.enabledClauses == Set(ClauseID.allCases).subtracting([.replaySafeRetry]))
        #expect(loaded.retryIdentityHeader == "X-Request-ID")
        #expect(loaded.steps.map(\.name) == ["download", "write"])
        #expect(loaded.steps[0].match.methods == ["POST", "PUT"] && loaded.steps[0].match.host == "api.test")
        #expect(loaded.steps[0].key == "job" && loaded.steps[1].key == "job")
        #expect(loaded.dependencies == [StepDependency(step: "write", needs: "download")])
        #expect(loaded.cancel == CancelDeclaration(mark: "cancel", key: "job"))
        #expect(loaded.commitSteps == ["write"])
        #expect(loaded.callbacks.first?.name == "done")
        #expect(loaded.callbacks.first?.required == ["42"])
        #expect(loaded.callbacks.first?.after == "write")
    }

    @Test func anEmptyContractIsTheDefault() {
        let (contract, errors) = Self.load("{}")
        #expect(errors.isEmpty)
        #expect(contract == .default)
    }

    @Test func errorsNameFileLineColumnAndSuggest() {
        let (contract, errors) = Self.load(
            """
            {
              clauses: { "exactly-onse": true, "bounded-retry": "yes" },
              stpes: [],
              steps: [
                { name: "download", mathc: { path: "/jobs/{job}/download" } },
                { name: "convert", match: { path: "jobs/{job}/convert" } },
                { name: "write", match: { path: "/jobs/{id}/write" }, key: "job" },
              ],
              dependencies: [{ step: "convert", needs: "downlaod" }],
              cancel: { mark: "cancel job" },
              retryIdentity: { header: "Bad Header" },
            }
            """)
        #expect(contract == nil)
        #expect(
            errors == [
                "c.json5:2:14: unknown clause 'exactly-onse' in 'clauses' (did you mean 'exactly-once'?)",
                "c.json5:2:53: 'bounded-retry' must be true or false, found \"yes\"",
                "c.json5:3:3: unknown key 'stpes' in the contract (did you mean 'steps'?)",
                "c.json5:5:5: missing required key 'match' in step 'download'",
                "c.json5:5:25: unknown key 'mathc' in step 1 (did you mean 'match'?)",
                "c.json5:6:39: 'path' a path template must start with '/'",
                "c.json5:7:64: 'key' must name a parameter of '/jobs/{id}/write', found 'job'",
                "c.json5:9:44: unknown step 'downlaod' (did you mean 'download'?)",
                "c.json5:10:19: 'mark' must be one word (the first word of the mark label), found \"cancel job\"",
                "c.json5:11:28: 'header' must be a header name (RFC 9110 §5.1 token), found \"Bad Header\"",
            ], "\(errors.joined(separator: "\n"))")
    }

    @Test func syntaxErrorsStopAtTheirPosition() {
        let (contract, errors) = Self.load("{\n  clauses: { \"exactly-once\": true,, },\n}")
        #expect(contract == nil)
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("c.json5:2:") == true)
    }

    @Test func referencesAndKeysAreChecked() {
        let (_, errors) = Self.load(
            """
            {
              steps: [
                { name: "a", match: { path: "/x/{p}/{q}" } },
                { name: "a", match: { path: "/y" } },
              ],
              commit: ["b"],
              callbacks: [{ match: { path: "/done" }, required: ["1"] }],
            }
            """)
        #expect(
            errors == [
                "c.json5:3:25: step 'a' needs 'key': its path has several parameters ({p}, {q})",
                "c.json5:4:13: step 'a' is already declared at 3:13",
                "c.json5:6:3: 'commit' needs 'cancel' to say which marks cancel a job",
                "c.json5:6:12: unknown step 'b' (did you mean 'a'?)",
                "c.json5:7:53: 'required' lists keys, but this callback has no key (its path has no parameter)",
            ], "\(errors.joined(separator: "\n"))")
    }

    @Test func pathTemplatesMatchWholeSegments() throws {
        let template = try PathTemplate("/jobs/{job}/*/complete")
        #expect(template.parameters == ["job"])
        #expect(template.match("/jobs/42/x/complete") == ["job": "42"])
        #expect(template.match("/jobs/42/complete") == nil)
        #expect(template.match("/jobs//x/complete") == nil)
        #expect(template.match("/jobs/42/x/complete/more") == nil)
        #expect(try PathTemplate("/files/**").match("/files/a/b/c") == [:])
        #expect(throws: PathTemplateError.self) { try PathTemplate("/a/**/b") }
        #expect(throws: PathTemplateError.self) { try PathTemplate("/a/{x}/{x}") }
        #expect(throws: PathTemplateError.self) { try PathTemplate("/a/x{y}") }
    }

    /// A file that is not there has no line 1, column 1 to point at (issue 9): the error says
    /// the file does not exist.
    @Test func aMissingFileSaysItDoesNotExist() throws {
        #expect(throws: ContractFileError.unreadable(path: "/nonexistent/contract.json5", reason: "does not exist")) {
            try ContractLoader.load(file: "/nonexistent/contract.json5")
        }
        let error = ContractFileError.unreadable(path: "/nonexistent/contract.json5", reason: "does not exist")
        #expect(error.description == "the contract file /nonexistent/contract.json5 does not exist")
        let folder = FileManager.default.temporaryDirectory.path
        #expect(throws: ContractFileError.unreadable(path: folder, reason: "is a directory")) {
            try ContractLoader.load(file: folder)
        }
    }

    @Test func anInvalidFileGivesEveryErrorWithItsPosition() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("faultline-contract-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("bad.json5")
        try Data("{\n  clauses: { \"exactly-onse\": true },\n  retryIdentiy: {},\n}\n".utf8).write(to: file)
        do {
            _ = try ContractLoader.load(file: file.path)
            Issue.record("an invalid contract loaded")
        } catch {
            guard case .invalid(let path, let errors) = error else {
                Issue.record("expected .invalid, got \(error)")
                return
            }
            #expect(path == file.path && errors.count == 2)
            #expect(error.summary == "2 errors in \(file.path)")
            #expect(error.description.hasPrefix("\(file.path):2:14: unknown clause 'exactly-onse'"))
        }
    }

    /// The repository's example contracts load without error.
    @Test func repositoryExamplesLoad() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Rules/contracts")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json5") }
        #expect(!files.isEmpty)
        for file in files {
            #expect(throws: Never.self, "\(file)") {
                try ContractLoader.load(file: folder.appendingPathComponent(file).path)
            }
        }
    }
}
