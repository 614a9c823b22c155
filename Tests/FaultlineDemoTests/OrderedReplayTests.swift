import FaultlineBackend
import FaultlineCapture
import FaultlineContract
import FaultlineReplay
import FaultlineTestProxy
import FaultlineTrace
import Foundation
import Testing

@testable import FaultlineDemo

/// `--order recorded` turns a race seen once into a race seen every time. The capture is a live
/// run in which the client without a generation check broke the logout boundary: its 401 was held
/// (by the race's rule) until the logout had been answered. Replayed without that rule, with the
/// client sending its request and the logout at once, the recorded order alone makes the 401
/// arrive after the logout: the violation shows on every run. Without the flag the replay answers
/// at once: the timing is the client's.
@Suite(.serialized) struct OrderedReplayTests {
    static let runs = 20
    static let profile = TestProxy.Rules.files(["auth-profile.json5": DemoRules.profile])

    @Test func theRecordedOrderReproducesTheLogoutBoundaryViolationEveryTime() async throws {
        let capture = try await Self.violatingCapture()
        for run in 1...Self.runs {
            let proxy = try TestProxy.start(
                replaying: capture, rules: Self.profile,
                settings: ReplaySettings(order: .recorded, orderTimeout: .seconds(10)))
            defer { proxy.stop() }
            let ann = try await ReferenceClient(baseURL: proxy.baseURL!, flaws: .noGenerationCheck).signIn("ann")
            async let messages = try? ann.call("GET", "/v1/messages")
            // The user taps "log out" while the request is in flight: once the proxy has it.
            try await Self.waitUntilReceived("/v1/messages", by: proxy)
            try? await ann.logout()
            _ = await messages
            let report = try proxy.checkContract()
            let trace = try proxy.trace()
            try #require(
                Set(report.violations.map(\.clause)) == [.logoutBoundary],
                "run \(run): \(ReportFormatter.text(report, traceName: "replay"))")
            // The order came from the replay, not from luck: the 401 waited for the logout.
            #expect(trace.events(.replayReleased).count >= 1, "run \(run): nothing waited for the recorded order")
            #expect(
                trace.events(.replayDiverged).isEmpty, "run \(run): \(trace.events(.replayDiverged).map(\.attributes))")
        }
    }

    @Test func theCorrectClientKeepsTheBoundaryInTheRecordedOrder() async throws {
        let capture = try await Self.violatingCapture()
        let proxy = try TestProxy.start(
            replaying: capture, rules: Self.profile, settings: ReplaySettings(order: .recorded))
        defer { proxy.stop() }
        let ann = try await ReferenceClient(baseURL: proxy.baseURL!).signIn("ann")
        async let messages = try? ann.call("GET", "/v1/messages")
        try await Self.waitUntilReceived("/v1/messages", by: proxy)
        try? await ann.logout()
        _ = await messages
        let report = try proxy.checkContract()
        #expect(try proxy.trace().events(.replayDiverged).isEmpty)
        #expect(report.violations.isEmpty, "\(ReportFormatter.text(report, traceName: "replay"))")
    }

    /// Without the flag nothing waits: the 401 comes back before the client has even sent its
    /// logout. With it, the same script finds the 401 held for the logout the recording had
    /// first, until the deadline, which the trace reports as a divergence.
    @Test func withoutTheFlagTheTimingIsTheClients() async throws {
        let capture = try await Self.violatingCapture()
        for order in [ReplaySettings.Order.free, .recorded] {
            let proxy = try TestProxy.start(
                replaying: capture, rules: Self.profile,
                settings: ReplaySettings(order: order, orderTimeout: .milliseconds(300)))
            defer { proxy.stop() }
            let ann = try await ReferenceClient(baseURL: proxy.baseURL!).signIn("ann")
            _ = try? await ann.call("GET", "/v1/messages")  // the answer first, the logout after
            try? await ann.logout()
            let trace = try proxy.trace()
            let messagesDelivered = try #require(
                trace.events(.responseDelivered).first { delivered in
                    trace.events(.requestReceived).contains {
                        $0.flow == delivered.flow && $0.string("path") == "/v1/messages"
                    }
                })
            let logoutReceived = try #require(trace.events(.requestReceived).first { $0.string("role") == "logout" })
            #expect(messagesDelivered.seq < logoutReceived.seq)
            if order == .free {
                #expect([.replayWaiting, .replayReleased, .replayDiverged].allSatisfy { trace.events($0).isEmpty })
            } else {
                let diverged = try #require(trace.events(.replayDiverged).first)
                #expect(
                    diverged.strings("missing")?.contains { $0.contains("POST") && $0.contains("delivered") } == true,
                    "\(diverged.attributes)")
            }
        }
    }

    /// `faultline rules from-capture`'s holds stage the same order against a live backend: the
    /// captured race, reproduced with the real backend instead of a replay.
    @Test func theGeneratedRulesReproduceTheOrderAgainstALiveBackend() async throws {
        let capture = try CaptureLoader.load(path: try await Self.violatingCapture().path)
        let (scenario, holds) = OrderRules.scenario(from: capture)
        #expect(holds == 1)
        let backend = ReferenceBackend()
        try backend.start()
        defer { backend.stop() }
        for run in 1...Self.runs {
            backend.reset()
            let proxy = try TestProxy.start(
                upstream: backend.baseURL!,
                rules: .files(["auth-profile.json5": DemoRules.profile, "order.json5": scenario]))
            defer { proxy.stop() }
            let ann = try await ReferenceClient(baseURL: proxy.baseURL!, flaws: .noGenerationCheck).signIn("ann")
            backend.expireAccessTokens()
            async let messages = try? ann.call("GET", "/v1/messages")
            try await Self.waitUntilReceived("/v1/messages", by: proxy)
            try? await ann.logout()
            _ = await messages
            let report = try proxy.checkContract()
            try #require(
                Set(report.violations.map(\.clause)) == [.logoutBoundary],
                "run \(run): \(ReportFormatter.text(report, traceName: "live"))")
        }
    }

    /// Waits (deadline 5 s) until the proxy's trace shows a request for `path`: what only the proxy
    /// can tell, read from its live trace.
    static func waitUntilReceived(_ path: String, by proxy: TestProxy) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while try !proxy.trace().events(.requestReceived).contains(where: { $0.string("path") == path }) {
            try #require(ContinuousClock.now < deadline, "no request for \(path) reached the proxy in 5 s")
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// A live run where the client without a generation check broke the logout boundary.
    static func violatingCapture() async throws -> URL {
        try await ViolatingCapture.shared.file()
    }
}

actor ViolatingCapture {
    static let shared = ViolatingCapture()
    private var made: URL?

    func file() async throws -> URL {
        if let made { return made }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "faultline-logout-race-\(UUID().uuidString).jsonl")
        let runner = try DemoRunner()
        defer { runner.stop() }
        let live = try await runner.run(
            DemoCase(.noGenerationCheck, .logoutRace, expected: [.logoutBoundary]), captureTo: file)
        try #require(live.asExpected, "the live run did not break the logout boundary: \(live.violated)")
        made = file
        return file
    }
}
