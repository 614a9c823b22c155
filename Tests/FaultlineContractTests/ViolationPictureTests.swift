import FaultlineContract
import FaultlineTrace
import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The violation pictures: the timeline model (lanes, bars, marks) of a logout-boundary
/// violation, its SVG as well-formed XML, escaping, and the HTML report's one picture per violation.
@Suite struct ViolationPictureTests {
    /// L1 logs in, logs out, then its old token is used: one logout-boundary violation.
    private func lateTokenTrace() -> (TraceBuilder, logout: UInt64, late: (flow: UInt64, seq: UInt64, answer: UInt64)) {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        let logout = trace.logout("L1", credentials: ["access:a1"])
        let late = trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a1"])
        return (trace, logout, late)
    }

    private func spans(_ trace: TraceBuilder, _ report: ContractReport) throws -> [UInt64: RequestSpan] {
        var collector = RequestSpanCollector(requests: report.witnessRequestSeqs)
        for event in try trace.trace().events { collector.consume(event) }
        return collector.spans
    }

    @Test func theModelHasALaneABarPerRequestAndTheBoundary() throws {
        let (trace, logout, late) = lateTokenTrace()
        let report = try trace.check()
        let violation = try #require(report.violations.first)
        let timeline = ViolationTimeline(violation: violation, spans: try spans(trace, report))
        #expect(timeline.clause == .logoutBoundary)
        #expect(timeline.lanes.map(\.lineage) == ["L1"])
        let lane = timeline.lanes[0]
        let logoutBar = try #require(lane.bars.first { $0.startSeq == logout })
        #expect(logoutBar.isBoundary && !logoutBar.isOffending)
        #expect(logoutBar.endSeq != nil && logoutBar.endSeq! > logout)  // from the trace's span
        let lateBar = try #require(lane.bars.first { $0.startSeq == late.seq })
        #expect(lateBar.isOffending && !lateBar.isBoundary)
        #expect(lateBar.request == "GET /v1/messages" && lateBar.status == 401)
        #expect(lateBar.endSeq == late.answer)
        #expect(lane.marks.contains { $0.kind == .boundary && $0.seq == logout })
        #expect(timeline.columns == timeline.columns.sorted())
        #expect(timeline.columns.contains(late.answer) && timeline.columns.contains(logout))
    }

    @Test func withoutSpansABarEndsAtItsAnswerWitnessOrStaysOpen() throws {
        let (trace, _, late) = lateTokenTrace()
        let violation = try #require(try trace.check().violations.first)
        let timeline = ViolationTimeline(violation: violation)
        let lateBar = try #require(timeline.lanes[0].bars.first { $0.startSeq == late.seq })
        #expect(lateBar.endSeq == nil)  // the answer is not a witness of this violation
        // An answer witness of the same request closes the bar.
        var withAnswer = violation
        withAnswer.timeline.append(
            WitnessEvent(
                seq: late.answer, offsetNanoseconds: 9, event: "response.delivered", lineage: "L1", method: "GET",
                path: "/v1/messages", status: 401, note: "answered"))
        let closed = ViolationTimeline(violation: withAnswer)
        #expect(closed.lanes[0].bars.first { $0.startSeq == late.seq }?.endSeq == late.answer)
        #expect(!closed.lanes[0].marks.contains { $0.seq == late.answer })
    }

    @Test func refreshesAreMarkedAndOtherLineageEventsGoLast() throws {
        let violation = Violation(
            clause: .singleFlightRefresh, summary: "two refreshes",
            timeline: [
                WitnessEvent(seq: 5, offsetNanoseconds: 5, event: "mark", note: "mark 'cancel'", marker: .context),
                WitnessEvent(
                    seq: 3, offsetNanoseconds: 3, event: "request.received", lineage: "L2", method: "POST",
                    path: "/oauth/token", note: "refresh started"),
                WitnessEvent(
                    seq: 4, offsetNanoseconds: 4, event: "request.received", lineage: "L2", method: "POST",
                    path: "/oauth/token", note: "overlapping refresh", marker: .offending),
                WitnessEvent(
                    seq: 6, offsetNanoseconds: 6, event: "lineage.refresh", lineage: "L2", note: "refresh completed"),
            ])
        let timeline = ViolationTimeline(violation: violation)
        #expect(timeline.lanes.map(\.lineage) == ["L2", nil])
        #expect(timeline.lanes[0].bars.map(\.isRefresh) == [true, true])
        #expect(timeline.lanes[0].bars.map(\.isOffending) == [false, true])
        #expect(timeline.lanes[0].marks.map(\.kind) == [.refresh])
        #expect(timeline.lanes[1].marks.map(\.kind) == [.event])
        #expect(timeline.columns == [3, 4, 5, 6])
    }

    @Test func theSVGIsWellFormedXMLWithOneTimelineGroupAndEveryWitnessLabelled() throws {
        let (trace, logout, late) = lateTokenTrace()
        let report = try trace.check()
        let timeline = ViolationTimeline(violation: report.violations[0], spans: try spans(trace, report))
        let document = SVGTimelineRenderer.document(timeline)
        #expect(
            document.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""))
        let root = try XMLCheck.parse(document)
        #expect(root.name == "svg")
        #expect(root.all { $0.attributes["class"] == "violation-timeline" }.count == 1)
        #expect(root.all { $0.attributes["class"] == "fl-lane-group" }.count == 1)
        #expect(root.all { $0.attributes["class"] == "fl-boundary" }.count == 1)
        #expect(root.all { $0.attributes["class"]?.contains("fl-offending") == true }.count == 1)
        let texts = root.all { $0.name == "text" }.map(\.text)
        for seq in report.violations[0].witnesses {
            #expect(texts.contains("\(seq)") || texts.contains { $0.hasPrefix("seq \(seq) ") })
        }
        #expect(texts.contains("seq \(logout)") && texts.contains("seq \(late.seq)"))
        #expect(!document.contains("<script"))
    }

    @Test func everyTextIsEscaped() throws {
        let nasty = #"<script>&"x'"#
        let violation = Violation(
            clause: .logoutBoundary, summary: "sent \(nasty)", lineage: nasty,
            timeline: [
                WitnessEvent(
                    seq: 1, offsetNanoseconds: 0, event: "request.received", lineage: nasty, method: "GET",
                    path: "/a?b=<c>&d=\"e\"", note: nasty, marker: .boundary),
                WitnessEvent(seq: 2, offsetNanoseconds: 1, event: "mark", lineage: nil, note: nasty),
            ])
        let svg = SVGTimelineRenderer.document(ViolationTimeline(violation: violation), title: nasty)
        #expect(!svg.contains("<script"))
        #expect(!svg.contains(#"<c>"#))
        let root = try XMLCheck.parse(svg)
        #expect(root.all { $0.name == "text" }.contains { $0.text == nasty })
        #expect(root.all { $0.attributes["data-lane"] == "lineage \(nasty)" }.count == 1)
        var report = ContractReport(violations: [violation], clausesChecked: [.logoutBoundary], eventCount: 2)
        report.traceProblems = []
        let html = ReportFormatter.html(report, traceName: "a<b>&.jsonl")
        #expect(!html.contains("<script") && !html.contains("a<b>"))
        #expect(html.contains("a&lt;b&gt;&amp;.jsonl"))
    }

    @Test func theHTMLReportHasOnePicturePerViolationAndTheClauses() throws {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        trace.logout("L1", credentials: ["access:a1"])
        trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a1"])
        trace.exchange("GET", "/v1/inbox", status: 401, lineage: "L1", credentials: ["access:a1"])
        let report = try trace.check()
        try #require(report.violations.count == 2)
        let html = ReportFormatter.html(report, traceName: "t.jsonl", spans: try spans(trace, report))
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(!html.contains("<script"))
        // The only address in the page is the SVG namespace: nothing is loaded from anywhere.
        #expect(
            html.replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "").range(of: "http") == nil)
        #expect(!html.contains("src=") && !html.contains("<link"))
        var pictures = 0
        var rest = Substring(html)
        while let start = rest.range(of: "<svg "),
            let end = rest.range(of: "</svg>", range: start.upperBound..<rest.endIndex)
        {
            let root = try XMLCheck.parse(String(rest[start.lowerBound..<end.upperBound]))
            pictures += root.all { $0.attributes["class"] == "violation-timeline" }.count
            rest = rest[end.upperBound...]
        }
        #expect(pictures == 2)
        #expect(html.contains("✗ logout-boundary: 2 violations"))
        #expect(html.contains("✓ bounded-retry"))
        // A clause the trace gave nothing to judge (there is no refresh) is never shown as held.
        #expect(html.contains("○ single-flight-refresh: nothing to judge") && !html.contains("✓ single-flight-refresh"))
        #expect(
            html.contains(
                ReportFormatter.verdict(report, traceName: "t.jsonl").replacingOccurrences(of: "'", with: "&apos;")))
    }
}

/// A tiny XML well-formedness check on Foundation's XMLParser: the element tree, or the parse error.
enum XMLCheck {
    final class Element {
        let name: String
        let attributes: [String: String]
        var children: [Element] = []
        var text = ""
        init(name: String, attributes: [String: String]) {
            self.name = name
            self.attributes = attributes
        }
        /// This element and every descendant that `predicate` accepts.
        func all(_ predicate: (Element) -> Bool) -> [Element] {
            (predicate(self) ? [self] : []) + children.flatMap { $0.all(predicate) }
        }
    }

    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    private final class Delegate: NSObject, XMLParserDelegate {
        var stack: [Element] = []
        var root: Element?
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            let element = Element(name: name, attributes: attributes)
            stack.last?.children.append(element)
            if root == nil { root = element }
            stack.append(element)
        }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { stack.last?.text += string }
    }

    static func parse(_ text: String) throws -> Element {
        let parser = XMLParser(data: Data(text.utf8))
        let delegate = Delegate()
        parser.delegate = delegate
        guard parser.parse(), let root = delegate.root else {
            throw Malformed(description: "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "no root")")
        }
        return root
    }
}
