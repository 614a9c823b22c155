import FaultlineTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Exploration.run` as a Swift developer's test uses it: the test's own URLSession client, run
/// once per schedule against the reference backend through an in-process proxy in exploration
/// mode, and `expectNoContractViolations()` on the result.
@Suite(.serialized) struct ExplorationTests {
    /// The example auth profile and a forced 401 for each login's first business calls, until
    /// it refreshes (as Rules/force-401-first-business.json5 does).
    static var rules: TestProxy.Rules {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let profile =
            (try? String(contentsOf: repository.appendingPathComponent("Rules/auth-profile.json5"), encoding: .utf8))
            ?? ""
        return .files([
            "auth-profile.json5": profile,
            "expired.json5": """
            { scope: "lineage", rules: [{ name: "expired", match: { role: "business" },
              when: { times: 3, before: "refresh.delivered" }, actions: [{ respond: { status: 401 } }] }] }
            """,
        ])
    }

    static let settings = ExploreScheduler.Settings(settle: .milliseconds(5), maxWait: .milliseconds(60))

    /// A client with three screens that call the API at once and refresh on 401, with or without
    /// a single shared refresh.
    actor Client {
        let base: URL
        let session: URLSession
        let singleFlight: Bool
        var access = ""
        var refresh = ""
        var refreshing: Task<Void, any Error>?

        init(base: URL, singleFlight: Bool) {
            self.base = base
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 10
            session = URLSession(configuration: configuration)
            self.singleFlight = singleFlight
        }

        func token(_ form: String) async throws {
            var request = URLRequest(url: base.appendingPathComponent("oauth/token"))
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(form.utf8)
            let (data, _) = try await session.data(for: request)
            let body = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
            access = body["access_token"] as? String ?? access
            refresh = body["refresh_token"] as? String ?? refresh
        }

        func renew(after rejected: String) async throws {
            guard singleFlight else { return try await token("grant_type=refresh_token&refresh_token=\(refresh)") }
            if let refreshing { return try await refreshing.value }
            guard access == rejected else { return }
            let task = Task { try await self.token("grant_type=refresh_token&refresh_token=\(self.refresh)") }
            refreshing = task
            defer { refreshing = nil }
            try await task.value
        }

        func get(_ path: String) async throws -> Int {
            for attempt in 0..<2 {
                let used = access
                var request = URLRequest(url: base.appendingPathComponent(path))
                request.setValue("Bearer \(used)", forHTTPHeaderField: "Authorization")
                let (_, response) = try await session.data(for: request)
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                guard status == 401, attempt == 0 else { return status }
                try await renew(after: used)
            }
            return 0
        }

        func threeScreens() async throws {
            try await token("grant_type=password&username=ann&password=any")
            async let a = get("v1/messages")
            async let b = get("v1/avatar")
            async let c = get("v1/count")
            _ = try await (a, b, c)
        }
    }

    @Test func aClientWithoutSingleFlightRefreshIsCaughtWithItsShrunkSchedule() async throws {
        let result = await Exploration.run(schedules: 10, rules: Self.rules, settings: Self.settings) { proxy in
            try await Client(base: proxy.baseURL!, singleFlight: false).threeScreens()
        }
        let message = try #require(result.failureMessage)
        #expect(result.report.findings.map(\.clause).contains(.singleFlightRefresh), "\(message)")
        #expect(message.contains("✗ single-flight-refresh") && message.contains("shrunk: "), "\(message)")
        let shrunk = try #require(result.report.findings.first { $0.clause == .singleFlightRefresh }?.shrunk)
        #expect(shrunk.trace.map { FileManager.default.fileExists(atPath: $0) } == true)
        #expect(shrunk.html.map { FileManager.default.fileExists(atPath: $0) } == true)
        withKnownIssue("the expectation fails with the report") {
            result.expectNoContractViolations()
        }
    }

    @Test func aClientWithSingleFlightRefreshPassesEverySchedule() async throws {
        let result = await Exploration.run(schedules: 15, rules: Self.rules, settings: Self.settings) { proxy in
            try await Client(base: proxy.baseURL!, singleFlight: true).threeScreens()
        }
        #expect(result.failureMessage == nil, "\(result.failureMessage ?? "")")
        #expect(result.report.runs.count == 15 && result.report.interleavings > 1)
        #expect(result.report.clientFailures.isEmpty, "\(result.report.clientFailures.map(\.client))")
        result.expectNoContractViolations()
    }
}
