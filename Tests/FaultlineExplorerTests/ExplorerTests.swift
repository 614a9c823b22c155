import FaultlineContract
import FaultlineExplore
import Foundation
import Testing

@testable import FaultlineExplorer

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The explorer over a simulated system (no proxy, no client): three steps pending at once, and
/// a "bug" when the third goes before the first. Its trace is a hand-written one that breaks
/// bounded-retry then, and holds otherwise.
@Suite struct ExplorerTests {
    static let header =
        #"{"faultline_trace":1,"faultline":"test","created":"2026-01-01T00:00:00.000000Z","fingerprint":"hmac-sha256-64"}"#

    /// Three GETs of one URL answered 401 in a row (a retry loop), or one answered 200.
    static func trace(broken: Bool) -> String {
        var lines = [header]
        var seq = 0
        func event(_ kind: String, flow: Int, _ extra: String) {
            seq += 1
            lines.append(
                #"{"seq":\#(seq),"wall":"2026-01-01T00:00:00.000000Z","mono_ns":\#(seq * 1000),"event":"\#(kind)","conn":\#(flow),"flow":\#(flow)\#(extra)}"#
            )
        }
        for flow in 1...(broken ? 3 : 1) {
            event(
                "request.received", flow: flow,
                #","method":"GET","url":"http://api.test/v1/x","host":"api.test","port":80,"path":"/v1/x","version":"HTTP/1.1","headers":[["Host","api.test"]]"#
            )
            event("response.delivered", flow: flow, broken ? #","status":401"# : #","status":200"#)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func run(_ strategy: any ExploreStrategy) -> ExploreRunOutput {
        var strategy = strategy
        var pending = (1...3).map {
            ExploreStep(id: UInt64($0), flow: UInt64($0), connection: 1, phase: .request, request: "GET /\($0)")
        }
        var record = ExploreRunRecord()
        var index = 0
        while !pending.isEmpty {
            var choice = strategy.choose(pending, canWait: false, decision: index)
            if case .step(let position) = choice, position >= pending.count { choice = .step(0) }
            if choice == .wait { choice = .step(0) }
            guard case .step(let position) = choice else { preconditionFailure() }
            record.decisions.append(
                ExploreDecision(
                    index: index, pending: pending, alternatives: pending.count, choice: choice,
                    chosen: pending[position]))
            record.choices.append(choice)
            record.order.append(pending.remove(at: position).label)
            index += 1
        }
        let broken = record.order.firstIndex(of: "request GET /3")! < record.order.firstIndex(of: "request GET /1")!
        return ExploreRunOutput(record: record, traceText: trace(broken: broken), client: .exited(0))
    }

    static func explorer(_ options: ExploreOptions) -> Explorer {
        Explorer(options: options, contract: .default) { strategy in run(strategy) }
    }

    @Test func aFailureIsFoundShrunkAndReportedInEveryFormat() async throws {
        let report = await Self.explorer(
            ExploreOptions(strategy: .random, seed: 1, schedules: 20, command: ["client", "--x y"])
        )
        .explore()
        #expect(report.baseline?.violated == [])
        let finding = try #require(report.findings.first)
        #expect(finding.clause == .boundedRetry)
        #expect(finding.schedules == report.runs.filter { !$0.violated.isEmpty }.count)
        #expect(finding.shrunkDeviations == 1, "\(ExploreReportFormatter.text(report))")
        #expect(report.exitStatus == 1 && !report.passed)
        let text = ExploreReportFormatter.text(report)
        #expect(text.contains("FAILED: 1 clause broken: bounded-retry"))
        #expect(
            text.contains("reproduce: faultline explore --schedule '\(finding.shrunk!.schedule)' -- client '--x y'"))
        let json = ExploreReportFormatter.json(report)
        #expect(try ExploreReportFormatter.decode(Data(json.utf8)) == report)
        let junit = ExploreReportFormatter.junit(report)
        let parser = XMLParser(data: Data(junit.utf8))
        #expect(parser.parse(), "\(junit)")
        #expect(junit.contains(#"<testcase classname="faultline.explore" name="bounded-retry">"#))
        #expect(junit.contains(#"name="exploration""#))
        let html = ExploreReportFormatter.html(report)
        #expect(html.contains("<h1 class=\"failed\">FAILED") && !html.contains("<script"))
    }

    @Test func shardsMergeIntoTheWholeExploration() async throws {
        let whole = await Self.explorer(ExploreOptions(strategy: .pct(depth: 2), seed: 7, schedules: 12)).explore()
        var parts: [ExploreReport] = []
        for index in 1...3 {
            parts.append(
                await Self.explorer(
                    ExploreOptions(
                        strategy: .pct(depth: 2), seed: 7, schedules: 12, shard: Shard(index: index, count: 3))
                ).explore())
        }
        let merged = try ExploreReport.merged(parts)
        #expect(merged.runs.map(\.schedule) == whole.runs.map(\.schedule))
        #expect(merged.runs.map(\.violated) == whole.runs.map(\.violated))
        #expect(merged.findings.map(\.clause) == whole.findings.map(\.clause))
        #expect(merged.findings.map(\.first.index) == whole.findings.map(\.first.index))
        #expect(merged.findings.map(\.schedules) == whole.findings.map(\.schedules))
        #expect(throws: ExploreFailure.self) { try ExploreReport.merged([parts[0], parts[0]]) }
    }

    @Test func exhaustiveSearchRunsEveryOrderOnceAndPasses() async {
        let report = await Self.explorer(ExploreOptions(strategy: .exhaustive, schedules: 100)).explore()
        #expect(report.runs.count == 6, "3! orders of three dependent steps")
        #expect(report.complete == true && report.cut == 0)
        #expect(report.interleavings == 6)
        #expect(report.findings.map(\.clause) == [.boundedRetry])
    }

    @Test func stoppingEarlyKeepsTheRunsSoFar() async {
        let report = await Self.explorer(ExploreOptions(strategy: .random, seed: 3, schedules: 50))
            .explore(shouldStop: { false })
        #expect(report.runs.count == 50 && !report.interrupted)
        let stopped = await Self.explorer(ExploreOptions(strategy: .random, seed: 3, schedules: 50))
            .explore(shouldStop: { true })
        #expect(stopped.runs.isEmpty && stopped.interrupted)
        #expect(stopped.baseline != nil)
    }
}
