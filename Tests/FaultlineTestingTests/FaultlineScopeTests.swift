import FaultlineContract
import FaultlineTestProxy
import FaultlineTesting
import Foundation
import Testing

/// The trait's scope, the client-side marks and the HAR, on a proxy without a backend.
@Suite struct FaultlineScopeTests {
    /// The labels of the trace's marks, in order.
    static func marks(_ proxy: TestProxy) throws -> [String] {
        try proxy.trace().events.filter { $0.kind.rawValue == "mark" }.compactMap { $0.string("label") }
    }

    @Test(.faultline(backend: .none, checksContract: false))
    func theTraitGivesTheTestItsScope() throws {
        let faultline = try #require(Faultline.current)
        #expect(faultline.backend == nil)
        #expect(faultline.baseURL == faultline.proxy.proxyURL, "without an upstream, the forward listener")
        #expect(!faultline.proxy.server.boundAddresses.isEmpty)
    }

    @Test func theScopeEndsWithItsBody() async throws {
        var seen: TestProxy?
        try await Faultline.withScope(Faultline.Configuration(upstream: .none, checksContract: false)) { faultline in
            #expect(Faultline.current?.proxy === faultline.proxy)
            seen = faultline.proxy
        }
        #expect(Faultline.current == nil)
        #expect(try #require(seen).server.boundAddresses.isEmpty, "stopped when the body returned")
    }

    @Test func aStepIsAMarkNamingItsJobAndOutcome() throws {
        let proxy = try TestProxy.start()
        defer { proxy.stop() }
        proxy.step("write", job: 7, outcome: .cancelled)
        proxy.step("download", outcome: .started)
        #expect(try Self.marks(proxy) == ["step write job=7 outcome=cancelled", "step download outcome=started"])
    }

    @Test func aTrackedCallIsMarkedCompletedOrCancelled() async throws {
        let proxy = try TestProxy.start()
        defer { proxy.stop() }
        #expect(try await proxy.tracking("quick") { 42 } == 42)
        let slow = Task {
            try await proxy.tracking("slow", cancelLabel: "cancel job=3") {
                try await Task.sleep(for: .seconds(30))
            }
        }
        slow.cancel()
        await #expect(throws: CancellationError.self) { try await slow.value }
        #expect(try Self.marks(proxy) == ["task.completed", "cancel job=3"], "one mark each, the cancel once")
    }

    @Test func theHARHoldsTheTestsExchanges() async throws {
        let proxy = try await ContractExpectationTests.proxyWithOneRequest()
        defer { proxy.stop() }
        let har = try JSONSerialization.jsonObject(with: Data(try proxy.har())) as? [String: Any]
        let log = try #require(har?["log"] as? [String: Any])
        #expect((log["entries"] as? [Any])?.count == 1)
    }
}
