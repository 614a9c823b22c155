import FaultlineTesting
import Foundation
import Testing

/// What a user's test does with FaultlineTesting alone: the reference backend and a proxy in
/// process, a forced 401, a held refresh released by the test, and the contract checked.
@Suite struct FixtureTests {
    @Test func aRefreshHeldAndReleasedKeepsTheContract() async throws {
        let backend = ReferenceBackend()
        _ = try backend.start()
        defer { backend.stop() }
        let upstream: URL = try #require(backend.baseURL)
        let proxy = try TestProxy.start(upstream: upstream, rules: try FixtureRules.withProfile())
        defer { proxy.stop() }
        let client = Client(baseURL: try #require(proxy.baseURL))

        let first = try await client.login()
        #expect(try await client.me(first) == 401, "the proxy answers the first business request 401")
        async let refreshed = client.refresh(first)
        let held: HeldFlow = try await proxy.waitForHold("refresh-response", timeout: .seconds(10))
        #expect(held.info.summary.contains("/oauth/token"))
        #expect(held.release(), "the test, not a timeout, lets the refresh response go")
        let second = try await refreshed
        #expect(try await client.me(second) == 200)
        #expect(try await client.logout(second) == 204)

        // The default contract declares no callbacks or pipeline steps: those two clauses have
        // nothing to break, so they do not fail the test (the report still lists them as not
        // checked). Every clause the trace can feed must have been checked.
        let report: ContractReport = try proxy.expectContractHolds()
        #expect(report.passed)
        #expect(report.clausesSkipped.allSatisfy { $0.cause == .nothingDeclared })
        #expect(report.clausesChecked.contains(.singleFlightRefresh) && report.clausesChecked.contains(.logoutBoundary))
        let trace: Trace = try proxy.trace()
        #expect(trace.events.contains { $0.kind.rawValue == "hold.started" })
    }

    @Test func aSkippedClauseFailsTheTest() async throws {
        let backend = ReferenceBackend()
        _ = try backend.start()
        defer { backend.stop() }
        // No auth profile: the proxy cannot tell a login from a business request, so the clauses
        // about lineages cannot run. That must not pass silently.
        let upstream: URL = try #require(backend.baseURL)
        let proxy = try TestProxy.start(upstream: upstream)
        defer { proxy.stop() }
        let client = Client(baseURL: try #require(proxy.baseURL))
        let tokens = try await client.login()
        #expect(try await client.me(tokens) == 200)
        #expect(try await client.logout(tokens) == 204)

        try withKnownIssue("no profile: logout-boundary cannot be checked") {
            try proxy.expectContractHolds()
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined(separator: "\n")
            let lines = text.split(separator: "\n")
            guard let line = lines.last(where: { $0.hasPrefix("trace: /") }),
                let reportLine = lines.last(where: { $0.hasPrefix("report: /") }),
                let harLine = lines.last(where: { $0.hasPrefix("har: /") })
            else { return false }
            let file = String(line.dropFirst("trace: ".count))
            let report = String(reportLine.dropFirst("report: ".count))
            let har = String(harLine.dropFirst("har: ".count))
            defer { for path in [file, report, har] { try? FileManager.default.removeItem(atPath: path) } }
            // The HTML report sits beside the trace and is a page a browser opens; the HAR too.
            let page = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
            let archive = (try? String(contentsOfFile: har, encoding: .utf8)) ?? ""
            return text.contains("logout-boundary:") && FileManager.default.fileExists(atPath: file)
                && report.hasSuffix(".html") && page.hasPrefix("<!DOCTYPE html>") && archive.contains("\"entries\"")
        }
    }

    @Test func aCapturedSessionReplaysWithoutTheBackend() async throws {
        let backend = ReferenceBackend()
        _ = try backend.start()
        let upstream: URL = try #require(backend.baseURL)
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fixture-capture-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: capture) }
        do {
            let live = try TestProxy.start(
                upstream: upstream, rules: try FixtureRules.profileOnly(), capture: CaptureOptions())
            defer { live.stop() }
            let client = Client(baseURL: try #require(live.baseURL))
            let tokens = try await client.login()
            #expect(try await client.me(tokens) == 200)
            try live.saveCapture(to: capture)
        }
        backend.stop()

        // The backend is gone: the replay answers, with fresh tokens the client presents back.
        let replay = try TestProxy.start(
            replaying: capture, rules: try FixtureRules.profileOnly(), settings: ReplaySettings())
        defer { replay.stop() }
        let client = Client(baseURL: try #require(replay.baseURL))
        let tokens = try await client.login()
        #expect(tokens.access.hasPrefix("flr"))
        #expect(try await client.me(tokens) == 200)
        #expect(try await client.me(Client.Tokens(access: "made-up", refresh: "")) == 502)
        let report: ContractReport = try replay.expectContractHolds()
        #expect(report.passed)
    }
}
