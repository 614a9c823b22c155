import FaultlineBackend
import FaultlineContract
import FaultlineExplore
import FaultlineServer
import FaultlineTestProxy
import Foundation
import Testing

@testable import FaultlineDemo

@Suite(.serialized) struct ExploreSpikeTests {
    @Test func tokenRaceUnderRandomSchedules() async throws {
        let backend = ReferenceBackend()
        try backend.start()
        defer { backend.stop() }
        var seen: Set<String> = []
        for seed in 1...5 {
            backend.reset()
            let proxy = try TestProxy.start(
                upstream: URL(string: "http://\(backend.address!)")!,
                rules: .files(["auth-profile.json5": DemoRules.profile]),
                explore: ExploreConfiguration(strategy: RandomStrategy(seed: UInt64(seed))))
            let started = Date()
            let client = ReferenceClient(baseURL: proxy.baseURL!, flaws: .noSingleFlight)
            try await DemoScenario.tokenRace.play(client, proxy: proxy, backend: backend)
            proxy.stop()
            let record = try #require(proxy.server.explored)
            let report = try proxy.checkContract()
            seen.insert(record.interleaving)
            print("seed \(seed): \(Date().timeIntervalSince(started))s decisions \(record.decisions.count) \(record.choices.map(\.token)) diverged \(record.divergences) violations \(report.violations.map(\.clause))")
        }
        print("interleavings \(seen.count)")
    }
}
