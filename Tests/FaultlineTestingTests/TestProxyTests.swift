import FaultlineContract
import FaultlineRules
import FaultlineServer
import FaultlineTesting
import FaultlineTrace
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The testing library as a user's test uses it: a proxy per test, a hold waited for and
/// released, a mark, the trace and the contract.
@Suite struct TestProxyTests {
    /// A forced answer needs no upstream, so these tests run without a backend.
    static let rules = TestProxy.Rules.files([
        "gate.json5": """
            { rules: [
                { name: "held", match: { path: "/held" }, actions: [{ hold: { name: "gate" } }, { respond: { status: 200, body: "late" } }] },
                { name: "answer", match: { path: "/answer" }, actions: [{ respond: { status: 204 } }] },
            ] }
            """
    ])

    private func get(_ url: URL) async throws -> Int {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        let (_, response) = try await URLSession(configuration: configuration).data(from: url)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test func holdIsWaitedForAndReleasedWithAResponse() async throws {
        let proxy = try TestProxy.start(upstream: URL(string: "http://127.0.0.1:9")!, rules: Self.rules)
        defer { proxy.stop() }
        let base = try #require(proxy.baseURL)
        async let status = get(base.appendingPathComponent("held"))
        let held = try await proxy.waitForHold("gate", timeout: .seconds(10))
        #expect(held.info.summary.contains("/held"))
        #expect(held.release(status: 418, body: "teapot"))
        #expect(try await status == 418)
        #expect(proxy.holds.isEmpty)
    }

    @Test func waitingForAHoldThatNeverComesTimesOut() async throws {
        let proxy = try TestProxy.start(rules: Self.rules)
        defer { proxy.stop() }
        await #expect(throws: HoldTimeout.self) { try await proxy.waitForHold("nothing", timeout: .milliseconds(100)) }
    }

    @Test func marksAndFlowsReachTheTraceAndTheContractHolds() async throws {
        let proxy = try TestProxy.start(upstream: URL(string: "http://127.0.0.1:9")!, rules: Self.rules)
        defer { proxy.stop() }
        #expect(try await get(proxy.baseURL!.appendingPathComponent("answer")) == 204)
        proxy.mark("cancel job=1", ["by": "test"])
        let trace = try proxy.trace()
        #expect(trace.events.contains { $0.kind.rawValue == "mark" && $0.string("label") == "cancel job=1" })
        #expect(trace.events.contains { $0.kind.rawValue == "rule.fired" })
        #expect(try proxy.expectContractHolds().passed)
    }

    @Test func environmentPointsChildProcessesAtTheForwardListener() throws {
        let proxy = try TestProxy.start()
        defer { proxy.stop() }
        #expect(proxy.environment["http_proxy"] == proxy.proxyURL.absoluteString)
        #expect(proxy.baseURL == nil)
    }

    @Test func rulesThatDoNotLoadNameTheirPosition() {
        #expect {
            _ = try TestProxy.start(rules: .files(["bad.json5": "{ rules: [{ name: \"x\", mathc: {} }] }"]))
        } throws: { error in
            "\(error)".contains("bad.json5:1:") && "\(error)".contains("did you mean 'match'")
        }
    }
}
