import FaultlineContract
import Foundation
import Testing

/// A clause the trace gave nothing to judge is never shown as held, and every report names the
/// contract it was checked against (issue 20: the same trace passed in part under the default
/// and "passed" with ✓ exactly-once under a contract file, with no callback in it).
@Suite struct NothingToJudgeTests {
    /// A contract declaring a callback and a pipeline, as `Rules/contracts/session.contract.json5` does.
    static let declaring = """
        {
          steps: [
            { name: "download", match: { method: "POST", path: "/jobs/{job}/download" } },
            { name: "convert", match: { method: "POST", path: "/jobs/{job}/convert" } },
          ],
          dependencies: [{ step: "convert", needs: "download" }],
          callbacks: [{ match: { method: "POST", path: "/jobs/{job}/complete" }, key: "job" }],
        }
        """

    static func declaringContract() throws -> Contract {
        let (contract, errors) = ContractLoader.load(text: declaring, file: "/home/ann/project/session.contract.json5")
        #expect(errors.isEmpty, "\(errors)")
        return try #require(contract)
    }

    /// A login, one business call answered 200: no refresh, no 401, no logout, no callback.
    static func quietSession() -> TraceBuilder {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        trace.exchange("GET", "/v1/messages", status: 200, lineage: "L1", credentials: ["access:a1"])
        return trace
    }

    @Test func aDeclaredCallbackNeverSeenIsNotShownAsHeld() throws {
        let report = try Self.quietSession().check(try Self.declaringContract())
        #expect(report.passed)
        #expect(report.clausesChecked.contains(.exactlyOnce))
        #expect(!report.exercised(.exactlyOnce))
        let text = ReportFormatter.text(report, traceName: "t.jsonl")
        #expect(!text.contains("✓ exactly-once"), "\(text)")
        #expect(text.contains("  ○ exactly-once: nothing to judge, no request matched a declared callback"))
        #expect(
            text.contains("  ○ dependency-respected: nothing to judge, no request matched a dependent or commit step"))
    }

    @Test func theFirstLineNamesTheContractByFileNameWithItsClauses() throws {
        let declared = ReportFormatter.text(try Self.quietSession().check(try Self.declaringContract()))
        #expect(
            declared.hasPrefix(
                "contract: session.contract.json5 (all 10 clauses on; declares 1 callback, 2 steps, 1 dependency; retry identity Idempotency-Key)\n"
            ), "\(declared)")
        #expect(!declared.contains("/home/ann"), "a report must not carry the contract's local path")
        var off = Contract.default
        off.enabledClauses.remove(.boundedRetry)
        off.retryIdentityHeader = nil
        let builtIn = ReportFormatter.text(try Self.quietSession().check(off))
        #expect(
            builtIn.hasPrefix(
                "contract: built-in default (9 of 10 clauses on, bounded-retry off; declares no callbacks, steps or dependencies; no retry identity header)\n"
            ), "\(builtIn)")
    }

    @Test func jsonAndJUnitNameTheContractAndTheIdleClauses() throws {
        let report = try Self.quietSession().check(try Self.declaringContract())
        let decoded = try JSONDecoder().decode(ContractReport.self, from: Data(ReportFormatter.json(report).utf8))
        #expect(decoded == report)
        #expect(decoded.contract.name == "session.contract.json5")
        #expect(decoded.clausesUnexercised.map(\.clause).contains(.exactlyOnce))
        let junit = ReportFormatter.junit(report, traceName: "t.jsonl")
        #expect(junit.contains(#"<property name="contract" value="session.contract.json5 (all 10 clauses on; "#))
        #expect(
            junit.contains(
                #"name="exactly-once">"# + "\n"
                    + #"      <skipped message="nothing to judge: no request matched a declared callback">"#))
    }

    /// A report written before `contract` and `clausesUnexercised` existed still decodes.
    @Test func anOlderJSONReportStillDecodes() throws {
        let old = """
            {"format":"faultline-contract-report/1","passed":true,"violations":[],"omittedViolations":{},
             "clausesChecked":["bounded-retry"],"clausesSkipped":[],"clausesDisabled":[],"traceProblems":[],
             "omittedTraceProblems":0,"eventCount":3,"lineages":[]}
            """
        let report = try JSONDecoder().decode(ContractReport.self, from: Data(old.utf8))
        #expect(report.contract.name == Contract.defaultName)
        #expect(report.exercised(.boundedRetry))
    }

    /// Each clause is exercised by the case it judges, and only then.
    @Test func eachClauseIsExercisedByItsCase() throws {
        let quiet = try Self.quietSession().check(try Self.declaringContract())
        #expect(
            Set(quiet.clausesUnexercised.map(\.clause)) == Set(ClauseID.allCases),
            "\(quiet.clausesUnexercised)")

        var trace = Self.quietSession()
        trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a1"])
        let refresh = trace.startRefresh("L1", refresh: "r1")
        trace.finishRefresh(
            refresh.flow, lineage: "L1", presented: "r1", replacing: ["access:a1"], access: "a2", refresh: "r2")
        trace.login("L2", access: "b1", refresh: "q1")
        trace.exchange("GET", "/v1/messages", status: 200, lineage: "L2", credentials: ["access:b1"])
        trace.logout("L1", credentials: ["access:a2"])
        trace.finishRefresh(
            trace.startRefresh("L1", refresh: "r2").flow, lineage: "L1", presented: "r2", replacing: ["access:a2"],
            access: "a3", refresh: "r3", afterLogout: true)
        let note = trace.request("POST", "/v1/notes", lineage: "L2", credentials: ["access:b1"], bodyLength: 19)
        trace.forward(note.flow, body: (19, "note"))
        trace.deliver(note.flow, 503, retryAfter: "1")
        trace.exchange("POST", "/jobs/7/download", status: 200, lineage: "L2", credentials: ["access:b1"])
        trace.exchange("POST", "/jobs/7/convert", status: 200, lineage: "L2", credentials: ["access:b1"])
        trace.exchange("POST", "/jobs/7/complete", status: 200, lineage: "L2", credentials: ["access:b1"])
        let busy = try trace.check(try Self.declaringContract())
        #expect(busy.clausesUnexercised.isEmpty, "\(busy.clausesUnexercised) \(busy.violations.map(\.summary))")
        let text = ReportFormatter.text(busy)
        #expect(!text.contains("○"))
    }
}
