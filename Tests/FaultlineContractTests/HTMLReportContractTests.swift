import FaultlineContract
import Foundation
import Testing

/// The HTML report says what the text report says about the contract (issue 20, item 2): which
/// contract judged the trace, before the verdict, and a clause the trace gave nothing to judge is
/// shown as such (`○`), never as held.
@Suite struct HTMLReportContractTests {
    @Test func thePageNamesTheContractAndNeverShowsAClauseWithNothingToJudgeAsHeld() throws {
        let report = try NothingToJudgeTests.quietSession().check(try NothingToJudgeTests.declaringContract())
        let html = ReportFormatter.html(report, traceName: "t.jsonl")
        let contract = try #require(html.range(of: MarkupText.escaped(report.contract.line)))
        let verdict = try #require(html.range(of: "t.jsonl: PASSED"))
        #expect(contract.upperBound < verdict.lowerBound, "the contract line comes first, as in the text report")
        #expect(!html.contains("/home/ann"), "the contract is named by its file name")
        #expect(!html.contains("✓ exactly-once") && !html.contains("✓ dependency-respected"))
        #expect(html.contains("○ exactly-once: nothing to judge, no request matched a declared callback"))
        #expect(
            html.contains("○ dependency-respected: nothing to judge, no request matched a dependent or commit step"))
    }
}
