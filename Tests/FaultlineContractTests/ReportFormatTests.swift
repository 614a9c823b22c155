import Foundation
import Testing

@testable import FaultlineContract

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The three report formats: text for people, JUnit for CI, JSON for tools.
@Suite struct ReportFormatTests {
    /// A report with one violation, a skipped and a disabled clause, and a trace problem.
    static func mixedReport() throws -> ContractReport {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        trace.logout("L1", credentials: ["access:a1"])
        trace.exchange("GET", "/v1/messages?page=<2>&x=\"y\"", status: 401, lineage: "L1", credentials: ["access:a1"])
        trace.exchange(
            "GET", "/v1/raw", status: 200, headers: [("Authorization", "Bearer not-a-fingerprint")], profile: false)
        var contract = Contract.default
        contract.enabledClauses.remove(.replaySafeRetry)
        return try trace.check(contract)
    }

    /// Collects testcases per testsuite with Foundation's XMLParser.
    final class JUnitReader: NSObject, XMLParserDelegate {
        var suites: [String: [String]] = [:]
        var failures: [String: String] = [:]
        /// The `message` of each failed case.
        var failureMessages: [String: String] = [:]
        var skipped: Set<String> = []
        /// The `message` of each skipped case.
        var skipMessages: [String: String] = [:]
        private var suite = ""
        private var testcase = ""
        private var text = ""

        func parser(
            _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            switch element {
            case "testsuite": suite = attributes["name"] ?? ""
            case "testcase":
                testcase = attributes["name"] ?? ""
                suites[suite, default: []].append(testcase)
            case "failure":
                text = ""
                failureMessages[testcase] = attributes["message"]
            case "skipped":
                skipped.insert(testcase)
                skipMessages[testcase] = attributes["message"]
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            if element == "failure" { failures[testcase] = text }
        }
    }

    @Test func junitParsesWithOneCasePerClause() throws {
        let report = try Self.mixedReport()
        let xml = ReportFormatter.junit(report, traceName: "traces/run 1.jsonl")
        let parser = XMLParser(data: Data(xml.utf8))
        let reader = JUnitReader()
        parser.delegate = reader
        #expect(parser.parse(), "JUnit XML does not parse: \(parser.parserError.map { "\($0)" } ?? "")\n\(xml)")
        #expect(reader.suites["session-boundary-contract"] == ClauseID.allCases.map(\.rawValue))
        #expect(reader.suites["trace"] == ["trace-integrity"])
        #expect(Set(reader.failures.keys) == ["logout-boundary", "trace-integrity"])
        #expect(reader.failures["logout-boundary"]?.contains("GET /v1/messages was sent at seq") == true)
        #expect(reader.failures["logout-boundary"]?.contains("✗▶") == true)
        #expect(reader.skipped.contains("replay-safe-retry") && reader.skipped.contains("exactly-once"))
        #expect(!reader.skipped.contains("bounded-retry"))
    }

    @Test func junitOfAPassingTraceHasNoFailure() throws {
        var trace = TraceBuilder()
        trace.exchange("GET", "/", status: 200)
        let xml = ReportFormatter.junit(try trace.check())
        #expect(!xml.contains("<failure"))
        #expect(xml.contains(#"<testsuite name="session-boundary-contract" tests="10" failures="0""#))
    }

    @Test func jsonRoundTrips() throws {
        let report = try Self.mixedReport()
        #expect(!report.violations.isEmpty && !report.traceProblems.isEmpty && !report.clausesSkipped.isEmpty)
        let json = ReportFormatter.json(report)
        let decoded = try JSONDecoder().decode(ContractReport.self, from: Data(json.utf8))
        #expect(decoded == report)
        // Tools can read it without Swift: plain keys and the clause names as strings.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["format"] as? String == "faultline-contract-report/1")
        #expect(object["passed"] as? Bool == false)
        let violations = try #require(object["violations"] as? [[String: Any]])
        #expect(violations.first?["clause"] as? String == "logout-boundary")
        #expect((violations.first?["witnesses"] as? [Int])?.isEmpty == false)
    }

    @Test func violationsPastTheLimitAreCountedAndRoundTrip() throws {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        trace.logout("L1", credentials: ["access:a1"])
        let extra = 30
        for page in 0..<(ContractChecker.maximumViolationsPerClause + extra) {
            trace.exchange("GET", "/v1/messages?page=\(page)", status: 401, lineage: "L1", credentials: ["access:a1"])
        }
        let report = try trace.check()
        #expect(report.violations.count == ContractChecker.maximumViolationsPerClause)
        #expect(report.omittedViolations == [.logoutBoundary: extra])
        #expect(report.violationCount(of: .logoutBoundary) == ContractChecker.maximumViolationsPerClause + extra)
        let json = ReportFormatter.json(report)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(
            object?["omittedViolations"] as? [String: Int] == ["logout-boundary": 30], "a JSON object keyed by clause")
        #expect(try JSONDecoder().decode(ContractReport.self, from: Data(json.utf8)) == report)
        #expect(ReportFormatter.text(report).contains("… and 30 more violations of logout-boundary (not listed)"))
    }

    @Test func jsonOfAnotherFormatIsRefused() throws {
        let json = #"{"format":"something-else","violations":[]}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ContractReport.self, from: Data(json.utf8)) }
    }

    @Test func textReportMarksTheBoundaryAndTheOffendingRequest() throws {
        let text = ReportFormatter.text(try Self.mixedReport(), traceName: "t.jsonl")
        let lines = text.split(separator: "\n").map(String.init)
        #expect(
            lines[0]
                == "contract: built-in default (9 of 10 clauses on, replay-safe-retry off; declares no callbacks, steps or dependencies; retry identity Idempotency-Key)"
        )
        #expect(lines[1].hasPrefix("t.jsonl: FAILED: 1 violation of logout-boundary and 1 trace problem"))
        let boundary = try #require(lines.first { $0.contains("─▶") })
        #expect(boundary.contains("POST /logout") && boundary.contains("logout sent (boundary)"))
        let offending = try #require(lines.first { $0.contains("✗▶") })
        #expect(offending.contains("GET /v1/messages → 401") && offending.contains("sent after logout"))
        #expect(lines.contains("  lineage L1"))
        #expect(lines.contains("  - replay-safe-retry: disabled by the contract"))
        #expect(text.contains("raw-secret: request.received at seq"))
        #expect(!text.contains("not-a-fingerprint"), "a report must never repeat the suspected secret")
    }

    @Test func textReportOfAPassingTraceSaysSo() throws {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        let text = ReportFormatter.text(try trace.check())
        // Nothing declared for exactly-once and dependency-respected: a pass in part, not a plain
        // pass (issue 9: a check that could not run is not a pass).
        let verdict = try #require(text.split(separator: "\n").dropFirst().first)
        #expect(
            verdict.hasPrefix(
                "PASSED IN PART: 2 enabled clauses could not be checked (exactly-once, dependency-respected); 0 clauses held (8 had nothing to judge ("
            ), "\(verdict)")
        #expect(!text.contains("✗"))
        #expect(!text.contains("✓"), "a clause with nothing to judge is never shown as held")
        #expect(text.contains("  ○ single-flight-refresh: nothing to judge, the trace has no refresh"))
    }

    @Test func timeOffsetsCountFromTheFirstEvent() {
        let event = WitnessEvent(seq: 1, offsetNanoseconds: 1_204_000_000, event: "mark", note: "")
        #expect(ReportFormatter.what(event) == "mark")
        #expect(ReportFormatter.time(event) == "+1.204s")
        #expect(
            ReportFormatter.time(WitnessEvent(seq: 1, offsetNanoseconds: 5_000_000, event: "x", note: "")) == "+0.005s")
    }
}
