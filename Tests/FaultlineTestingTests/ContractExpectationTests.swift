import FaultlineContract
import FaultlineTestProxy
import FaultlineTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The contract expectations: a clause that could not run fails the test unless accepted, and a
/// failure writes the trace to a file whose path the message names.
@Suite struct ContractExpectationTests {
    /// One forced answer, no auth profile: every profile clause is skipped.
    static func proxyWithOneRequest() async throws -> TestProxy {
        let proxy = try TestProxy.start(
            upstream: URL(string: "http://127.0.0.1:9")!,
            rules: .files([
                "answer.json5":
                    #"{ rules: [{ name: "answer", match: { path: "/answer" }, actions: [{ respond: { status: 204 } }] }] }"#
            ]))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        let (_, response) = try await URLSession(configuration: configuration).data(
            from: proxy.baseURL!.appendingPathComponent("answer"))
        #expect((response as? HTTPURLResponse)?.statusCode == 204)
        return proxy
    }

    /// The trace only grows (a connection's close may still arrive): a file written from it is a
    /// non-empty prefix of what it holds now.
    static func isSnapshot(_ text: String?, of proxy: TestProxy) -> Bool {
        guard let text, text.contains("request.received") else { return false }
        return proxy.traceText.hasPrefix(text)
    }

    static func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "faultline-expectation-\(UUID())", isDirectory: true)
    }

    @Test func aSkippedClauseFailsTheTestNamingTheClauseTheReasonAndTheTraceFile() async throws {
        let proxy = try await Self.proxyWithOneRequest()
        defer { proxy.stop() }
        let report = try proxy.checkContract()
        let skipped = try #require(report.clausesSkipped.first { $0.clause == .logoutBoundary })
        #expect(report.passed, "no violation: only the skip can fail it")
        try withKnownIssue {
            try proxy.expectContractHolds()
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined(separator: "\n")
            guard let path = text.split(separator: "\n").first(where: { $0.hasPrefix("trace: ") })?.dropFirst(7) else {
                return false
            }
            defer {
                try? FileManager.default.removeItem(atPath: String(path))
                try? FileManager.default.removeItem(atPath: String(path.dropLast(".jsonl".count)) + ".html")
                try? FileManager.default.removeItem(atPath: String(path.dropLast(".jsonl".count)) + ".har")
            }
            return text.hasPrefix("FAILED: the contract was not checked in full; not checked: ")
                && text.contains("logout-boundary: \(skipped.reason)") && text.contains("acceptingUnchecked")
                && Self.isSnapshot(try? String(contentsOfFile: String(path), encoding: .utf8), of: proxy)
        }
    }

    @Test func acceptingEverySkippedClausePasses() async throws {
        let proxy = try await Self.proxyWithOneRequest()
        defer { proxy.stop() }
        let skipped = try proxy.checkContract().clausesSkipped.filter { $0.cause == .missingData }.map(\.clause)
        #expect(!skipped.isEmpty)
        try proxy.expectContractHolds(acceptingUnchecked: Set(skipped))
        let verdict = try proxy.expectation(.default, acceptingUnchecked: Set(skipped.dropLast()), label: "one-left")
        #expect(verdict.unchecked.map(\.clause) == [skipped.last!])
        for file in [verdict.traceFile, verdict.reportFile, verdict.harFile].compactMap({ $0 }) {
            try? FileManager.default.removeItem(at: file)
        }
    }

    @Test func aClauseTheContractDeclaresNothingForDoesNotFailTheTest() {
        let nothingDeclared = ContractReport.SkippedClause(
            clause: .exactlyOnce, reason: "the contract declares no callbacks", cause: .nothingDeclared)
        let missingData = ContractReport.SkippedClause(clause: .logoutBoundary, reason: "no auth profile in this trace")
        let lenient = ContractExpectation(
            report: ContractReport(clausesChecked: [.boundedRetry], clausesSkipped: [nothingDeclared]),
            acceptingUnchecked: [], trace: "", label: "nothing-declared")
        #expect(lenient.failureMessage == nil && lenient.unchecked.isEmpty)
        let strict = ContractExpectation(
            report: ContractReport(clausesSkipped: [nothingDeclared, missingData]), acceptingUnchecked: [], trace: "",
            label: "missing-data")
        #expect(strict.unchecked.map(\.clause) == [.logoutBoundary])
        for file in [strict.traceFile, strict.reportFile, strict.harFile].compactMap({ $0 }) {
            try? FileManager.default.removeItem(at: file)
        }
    }

    @Test func theTraceGoesToTheArtifactsFolderNamedAfterTheTest() async throws {
        let proxy = try await Self.proxyWithOneRequest()
        defer { proxy.stop() }
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let trace = proxy.traceText
        let verdict = ContractExpectation(
            report: try proxy.checkContract(), acceptingUnchecked: [], trace: trace, label: "My test()/1",
            environment: [ContractExpectation.artifactsVariable: folder.path])
        let file = try #require(verdict.traceFile)
        #expect(file.deletingLastPathComponent().standardizedFileURL.path == folder.standardizedFileURL.path)
        #expect(file.lastPathComponent.hasPrefix("My-test---1-") && file.pathExtension == "jsonl")
        #expect(ContractExpectation.fileName("aTest()") == "aTest" && ContractExpectation.fileName("()") == "trace")
        #expect(try String(contentsOf: file, encoding: .utf8) == trace)
        #expect(verdict.failureMessage?.hasSuffix("trace: \(file.path)") == true)
    }

    @Test func aViolationWritesTheHTMLReportBesideTheTraceWithItsPicture() throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let violation = Violation(
            clause: .logoutBoundary, summary: "L1's access token was used after its logout", lineage: "L1",
            timeline: [
                WitnessEvent(
                    seq: 4, offsetNanoseconds: 1_000, event: "request.received", lineage: "L1", method: "POST",
                    path: "/logout", note: "logout", marker: .boundary),
                WitnessEvent(
                    seq: 9, offsetNanoseconds: 5_000, event: "request.received", lineage: "L1", method: "GET",
                    path: "/v1/messages", note: "old token presented", marker: .offending),
            ])
        let verdict = ContractExpectation(
            report: ContractReport(violations: [violation], clausesChecked: [.logoutBoundary]), acceptingUnchecked: [],
            trace: "{\"faultline_trace\":1}\n", label: "violated",
            environment: [ContractExpectation.artifactsVariable: folder.path])
        let trace = try #require(verdict.traceFile)
        let report = try #require(verdict.reportFile)
        #expect(report.deletingPathExtension().lastPathComponent == trace.deletingPathExtension().lastPathComponent)
        #expect(report.pathExtension == "html")
        let page = try String(contentsOf: report, encoding: .utf8)
        #expect(page.components(separatedBy: "class=\"violation-timeline\"").count == 2, "one picture")
        #expect(page.contains("logout-boundary") && page.contains(trace.lastPathComponent))
        // The page is what gets attached to a CI run: the trace by its name, never its folder.
        #expect(!page.contains(folder.path))
        let message = try #require(verdict.failureMessage)
        #expect(message.contains("\(trace.lastPathComponent): FAILED"))
        let har = try #require(verdict.harFile)
        #expect(har.deletingPathExtension().lastPathComponent == trace.deletingPathExtension().lastPathComponent)
        #expect(message.contains("\nreport: \(report.path)\nhar: \(har.path)\ntrace: \(trace.path)"))
    }

    @Test func anExpectationThatHoldsWritesNothing() async throws {
        let proxy = try await Self.proxyWithOneRequest()
        defer { proxy.stop() }
        let folder = Self.temporaryFolder()
        let report = try proxy.checkContract()
        let verdict = ContractExpectation(
            report: report, acceptingUnchecked: Set(report.clausesSkipped.map(\.clause)), trace: proxy.traceText,
            label: "holds", environment: [ContractExpectation.artifactsVariable: folder.path])
        #expect(
            verdict.failureMessage == nil && verdict.traceFile == nil && verdict.reportFile == nil
                && verdict.harFile == nil)
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }
}
