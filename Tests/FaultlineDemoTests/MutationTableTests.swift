import FaultlineContract
import FaultlineDemo
import Testing

/// DESIGN.md §2: the checker is proven by mutation. The correct reference client passes every
/// race; each broken variant, driven through the proxy against the reference backend by its
/// race's rules, is caught by exactly the clause it breaks. Real sockets, in-process.
@Suite(.serialized) struct MutationTableTests {
    static let runner = try! DemoRunner()

    @Test(arguments: DemoCase.mutationTable)
    func eachVariantIsCaughtByExactlyItsClause(_ demoCase: DemoCase) async throws {
        let result = try await Self.runner.run(demoCase)
        let named = result.violated.sorted().map(\.rawValue)
        #expect(
            result.asExpected,
            "\(demoCase.variant) through \(demoCase.scenario.rawValue): expected \(demoCase.expected.sorted().map(\.rawValue)), checker named \(named)\n\(ReportFormatter.text(result.report, traceName: "trace"))"
        )
        #expect(result.report.traceProblems.isEmpty, "\(result.report.traceProblems)")
    }
}
