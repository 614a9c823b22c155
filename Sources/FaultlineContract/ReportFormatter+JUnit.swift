import FaultlineCore

/// JUnit XML, the format CI systems (GitHub Actions reporters, GitLab, Jenkins) show as tests.
extension ReportFormatter {
    /// One `<testsuite name="session-boundary-contract">` with one `<testcase>` per clause (a
    /// `<failure>` carrying the text blocks when violated; `<skipped>` with the reason when it could
    /// not be checked, so CI shows it as not run rather than passed; `<skipped>` "nothing to judge"
    /// when the trace never met its case, for the same reason; `<skipped>` "disabled by the
    /// contract" when turned off), and a second suite `trace` with one case, `trace-integrity`,
    /// failed by trace problems. The suite's `contract` property names the contract.
    public static func junit(_ report: ContractReport, traceName: String? = nil) -> String {
        let suiteName = "session-boundary-contract"
        let className = "faultline.contract" + (traceName.map { "." + sanitizedClassName($0) } ?? "")
        var cases: [String] = []
        var failures = 0
        var skips = 0
        for clause in ClauseID.allCases {
            var element = "    <testcase classname=\"\(escape(className))\" name=\"\(clause.rawValue)\""
            switch report.standing(of: clause) {
            case .broken(let count):
                failures += 1
                let violations = report.violations(of: clause)
                let message = violations.first.map { $0.summary } ?? "\(count) violations"
                var body = violations.flatMap(block).joined(separator: "\n")
                if let omitted = report.omittedViolations[clause], omitted > 0 {
                    body += "\n… and \(omitted) more violations"
                }
                element += ">\n      <failure type=\"\(clause.rawValue)\" message=\"\(escape(message))\">"
                element += escape(body) + "</failure>\n    </testcase>"
            case .notChecked(let reason):
                skips += 1
                element +=
                    ">\n      <skipped message=\"\(escape(reason))\">not checked: \(escape(reason))</skipped>\n    </testcase>"
            case .nothingToJudge(let reason):
                skips += 1
                let message = escape("nothing to judge: " + reason)
                element += ">\n      <skipped message=\"\(message)\">\(message)</skipped>\n    </testcase>"
            case .disabled:
                skips += 1
                element += ">\n      <skipped message=\"disabled by the contract\"/>\n    </testcase>"
            case .held, nil:
                element += "/>"
            }
            cases.append(element)
        }
        let problems = report.traceProblems.count + report.omittedTraceProblems
        var integrity = "    <testcase classname=\"\(escape(className))\" name=\"trace-integrity\""
        if problems > 0 {
            let body = report.traceProblems.map { "\($0.kind.rawValue): \($0.message)" }.joined(separator: "\n")
            integrity +=
                ">\n      <failure type=\"trace-integrity\" message=\"\(problems) trace problem\(problems == 1 ? "" : "s")\">"
            integrity += escape(body) + "</failure>\n    </testcase>"
        } else {
            integrity += "/>"
        }
        let total = ClauseID.allCases.count
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml +=
            "<testsuites name=\"faultline check\" tests=\"\(total + 1)\" failures=\"\(failures + (problems > 0 ? 1 : 0))\" skipped=\"\(skips)\">\n"
        xml +=
            "  <testsuite name=\"\(suiteName)\" tests=\"\(total)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skips)\">\n"
        xml +=
            "    <properties>\n      <property name=\"contract\" value=\"\(escape(report.contract.description))\"/>\n    </properties>\n"
        xml += cases.joined(separator: "\n") + "\n  </testsuite>\n"
        xml +=
            "  <testsuite name=\"trace\" tests=\"1\" failures=\"\(problems > 0 ? 1 : 0)\" errors=\"0\" skipped=\"0\">\n"
        xml += integrity + "\n  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// The JUnit report for a check that could not run (a malformed trace line, an unreadable
    /// trace, a bad contract file): one suite `trace` with one failing case, `usable-input`, whose
    /// message is `summary` and whose text is every line of `details`. CI always gets its report file,
    /// and the run is red for the right reason.
    public static func junitError(summary: String, details: [String], traceName: String? = nil) -> String {
        let className = "faultline.contract" + (traceName.map { "." + sanitizedClassName($0) } ?? "")
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"faultline check\" tests=\"1\" failures=\"1\" skipped=\"0\">\n"
        xml += "  <testsuite name=\"trace\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\">\n"
        xml += "    <testcase classname=\"\(escape(className))\" name=\"usable-input\">\n"
        xml += "      <failure type=\"unusable-input\" message=\"\(escape(summary))\">"
        xml += escape(details.joined(separator: "\n")) + "</failure>\n"
        xml += "    </testcase>\n  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// XML 1.0 text and attribute escaping (``MarkupEscaping``).
    static func escape(_ text: String) -> String { MarkupEscaping.escaped(text) }

    /// A trace file name as a JUnit class name part: its base name, dots and odd characters as `_`.
    private static func sanitizedClassName(_ path: String) -> String {
        String(traceFileName(path).map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" })
    }
}
