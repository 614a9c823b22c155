public import FaultlineContract
import FaultlineExplore
public import FaultlineExplorer
public import FaultlineRules
import FaultlineServer
public import Foundation

extension Explorer {
    /// An explorer whose every run starts a `TestProxy` in exploration mode (in front of
    /// `upstream`, with `rules`), calls `beforeEach`, runs `client` against it and stops it. A
    /// client that throws is a client failure of that run, not the end of the exploration.
    public static func inProcess(
        options: ExploreOptions, contract: Contract, upstream: URL?, rules: TestProxy.Rules? = nil,
        select: FlowMatch = FlowMatch(), stepTimeout: Duration = .seconds(5),
        beforeEach: @escaping @Sendable () async throws -> Void = {},
        client: @escaping @Sendable (TestProxy) async throws -> Void
    ) -> Explorer {
        Explorer(options: options, contract: contract) { strategy in
            try await beforeEach()
            let proxy = try TestProxy.start(
                upstream: upstream, rules: rules,
                explore: ExploreConfiguration(
                    strategy: strategy, select: select, settings: options.settings, stepTimeout: stepTimeout))
            var outcome = ClientOutcome()
            do {
                try await client(proxy)
            } catch {
                outcome.problem = "\(error)"
            }
            proxy.stop()
            guard let record = proxy.server.explored else {
                preconditionFailure("a proxy started in exploration mode has no exploration record")
            }
            return ExploreRunOutput(record: record, traceText: proxy.traceText, client: outcome)
        }
    }
}
