import FaultlineBackend
import FaultlineContract
import FaultlineExplore
import FaultlineExplorer
import FaultlineServer
import FaultlineTestProxy
import Foundation
import Testing

@testable import FaultlineDemo

@Suite(.serialized) struct ExploreSpikeTests {
    @Test(arguments: [ClientFlaws.noSingleFlight, []])
    func tokenRaceExplored(_ flaws: ClientFlaws) async throws {
        let backend = ReferenceBackend()
        try backend.start()
        defer { backend.stop() }
        let (contract, _) = ContractLoader.load(text: DemoRunner.contractFile.text, file: DemoRunner.contractFile.name)
        let options = ExploreOptions(
            strategy: .random, seed: 1, schedules: 20,
            settings: ExploreScheduler.Settings(settle: .milliseconds(25), maxWait: .milliseconds(100)))
        let explorer = Explorer.inProcess(
            options: options, contract: contract!, upstream: URL(string: "http://\(backend.address!)")!,
            rules: .files(["auth-profile.json5": DemoRules.profile]), beforeEach: { backend.reset() }
        ) { proxy in
            let client = ReferenceClient(baseURL: proxy.baseURL!, flaws: flaws)
            try await DemoScenario.tokenRace.play(client, proxy: proxy, backend: backend)
        }
        let report = await explorer.explore()
        print(ExploreReportFormatter.text(report))
    }
}
