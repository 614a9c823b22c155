import Foundation
import Testing

@testable import FaultlineReplayClient

private let results = [
    ReplayResult(
        number: 1, method: "POST", url: "http://api.test/oauth/token", recordedStatus: 200, status: 200, outcome: .same),
    ReplayResult(
        number: 2, method: "GET", url: "http://api.test/v1/messages", recordedStatus: 200, status: 500,
        outcome: .different,
        differences: [ResponseDifference(.status, recorded: "200", now: "500")]),
    ReplayResult(
        number: 3, method: "GET", url: "http://api.test/v1/me", recordedStatus: 200, status: nil, outcome: .failed,
        error: "read: timed out (--timeout)"),
    ReplayResult(
        number: 4, method: "POST", url: "http://api.test/upload", recordedStatus: 201, status: nil, outcome: .skipped,
        error: "the capture kept 10 of the body's 20 bytes (--capture-body-limit)"),
]

private func report(allowed: Int, results: [ReplayResult] = results, unresolved: [String] = ["flp.password.none.1"])
    -> ReplayReport
{
    ReplayReport(
        capture: "capture.jsonl", target: "http://127.0.0.1:9000", speed: 2, results: results, connectionCount: 2,
        recordedSpan: .milliseconds(1234), replaySpan: .milliseconds(620), unresolved: unresolved,
        allowedDifferences: allowed)
}

@Test func theTextReportHasALinePerRequestThenTheSummary() {
    #expect(
        ReplayReportFormatter.text(report(allowed: 1)) == """
            #1 POST http://api.test/oauth/token  recorded 200 → now 200  [same]
            #2 GET http://api.test/v1/messages  recorded 200 → now 500  [DIFF]
            #3 GET http://api.test/v1/me  recorded 200 → now error  [DIFF]
            #4 POST http://api.test/upload  recorded 201 → now not sent  [DIFF]

            4 requests on 2 connections to http://127.0.0.1:9000: 1 same, 1 different, 1 failed, 1 skipped
            differences:
              #2 GET http://api.test/v1/messages: status 200 → 500
              #3 GET http://api.test/v1/me: no answer: read: timed out (--timeout)
              #4 POST http://api.test/upload: not sent: the capture kept 10 of the body's 20 bytes (--capture-body-limit)
            timing: recorded 1.234 s, replayed in 0.620 s at speed 2
            sent as recorded, for want of a live value: flp.password.none.1 (give one with --secret PSEUDONYM=VALUE)
            FAILED: 3 differences, more than --allow 1

            """)
}

@Test func theVerdictFollowsAllow() {
    #expect(ReplayReportFormatter.verdict(report(allowed: 3)) == "PASSED: 3 differences, within --allow 3")
    #expect(!report(allowed: 2).passed && report(allowed: 3).passed)
    let clean = report(allowed: 0, results: [results[0]], unresolved: [])
    #expect(clean.passed)
    #expect(
        ReplayReportFormatter.text(clean).hasSuffix(
            "timing: recorded 1.234 s, replayed in 0.620 s at speed 2\nPASSED: every answer is the same as recorded\n"))
}

@Test func theJSONReportCarriesEveryResult() throws {
    let text = ReplayReportFormatter.json(report(allowed: 1))
    let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    #expect(document["passed"] as? Bool == false)
    let summary = try #require(document["summary"] as? [String: Any])
    #expect(summary["requests"] as? Int == 4 && summary["differences"] as? Int == 3 && summary["allowed"] as? Int == 1)
    #expect(summary["same"] as? Int == 1 && summary["different"] as? Int == 1 && summary["failed"] as? Int == 1)
    let requests = try #require(document["requests"] as? [[String: Any]])
    #expect(requests.map { $0["outcome"] as? String } == ["same", "different", "failed", "skipped"])
    #expect(requests[1]["recorded_status"] as? Int == 200 && requests[1]["status"] as? Int == 500)
    let difference = try #require((requests[1]["differences"] as? [[String: Any]])?.first)
    #expect(difference["kind"] as? String == "status" && difference["now"] as? String == "500")
    #expect(document["unresolved"] as? [String] == ["flp.password.none.1"])
    let timing = try #require(document["timing"] as? [String: Any])
    #expect(timing["recorded_seconds"] as? Double == 1.234)
}

@Test func secondsAndSpeedsAreWrittenPlainly() {
    #expect(ReplayReportFormatter.seconds(.milliseconds(5)) == "0.005 s")
    #expect(ReplayReportFormatter.seconds(.seconds(12)) == "12.000 s")
    #expect(ReplayReportFormatter.speedText(1) == "1")
    #expect(ReplayReportFormatter.speedText(0.5) == "0.5")
}
