import FaultlineContract
import FaultlineTrace
import Foundation
import Testing

/// What the HTML report and its pictures promise beyond being well-formed (issue 20, item 8):
/// a report names the trace file, never the folder it sits in; each violation's sentence is
/// printed once; no label of a picture is crossed by a boundary line; the x axis is time to scale
/// (seq numbers label the events), with idle gaps cut short and said so.
@Suite struct ReportLayoutTests {
    /// L1 logs in, logs out, then its old token is used twice: two logout-boundary violations.
    private func lateTokenReport() throws -> (ContractReport, [UInt64: RequestSpan]) {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        trace.logout("L1", credentials: ["access:a1"])
        trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a1"])
        trace.exchange("GET", "/v1/inbox", status: 401, lineage: "L1", credentials: ["access:a1"])
        let report = try trace.check()
        try #require(report.violations.count == 2)
        var collector = RequestSpanCollector(requests: report.witnessRequestSeqs)
        for event in try trace.trace().events { collector.consume(event) }
        return (report, collector.spans)
    }

    @Test(arguments: [
        "/home/alice/projects/secret-client/traces/run-7.jsonl", "../secret-client/traces/run-7.jsonl",
        "secret-client/traces/run-7.jsonl",
    ])
    func reportsNameTheTraceFileNotItsFolder(path: String) throws {
        let (report, spans) = try lateTokenReport()
        let html = ReportFormatter.html(report, traceName: path, spans: spans)
        #expect(!html.contains("secret-client") && !html.contains("/home/alice"))
        #expect(html.contains("<title>faultline check: run-7.jsonl</title>"))
        #expect(html.contains(">run-7.jsonl: FAILED: 2 violations of logout-boundary"))
        let text = ReportFormatter.text(report, traceName: path)
        #expect(!text.contains("secret-client"))
        #expect(text.contains("run-7.jsonl: FAILED: 2 violations of logout-boundary"))
        #expect(!ReportFormatter.verdict(report, traceName: path).contains("secret-client"))
        #expect(!ReportFormatter.junit(report, traceName: path).contains("secret-client"))
        #expect(!ReportFormatter.json(report).contains("run-7"))  // JSON names no file at all
    }

    @Test func namesThatAreNotPathsAreKept() throws {
        let (report, _) = try lateTokenReport()
        #expect(ReportFormatter.verdict(report, traceName: "standard input").hasPrefix("standard input: FAILED"))
        #expect(ReportFormatter.verdict(report, traceName: "run.jsonl").hasPrefix("run.jsonl: FAILED"))
    }

    @Test func theSentenceIsPrintedOncePerViolation() throws {
        let (report, spans) = try lateTokenReport()
        let html = ReportFormatter.html(report, traceName: "t.jsonl", spans: spans)
        for violation in report.violations {
            let sentence = MarkupText.escaped(violation.summary)
            #expect(html.components(separatedBy: sentence).count - 1 == 1, "\(violation.summary)")
        }
    }

    @Test func noLabelIsCrossedByABoundaryLine() throws {
        let (report, spans) = try lateTokenReport()
        let html = ReportFormatter.html(report, traceName: "t.jsonl", spans: spans)
        var checked = 0
        for picture in SVGPictures.all(in: html) + [
            SVGTimelineRenderer.document(
                ViolationTimeline(violation: report.violations[0], spans: spans), title: "t.jsonl: violation 1 of 2")
        ] {
            let root = try XMLCheck.parse(picture)
            let lines = root.all { $0.attributes["class"] == "fl-boundary" }.flatMap { $0.all { $0.name == "line" } }
            try #require(!lines.isEmpty)
            for line in lines {
                let x = try #require(Double(line.attributes["x1"] ?? ""))
                let top = try #require(Double(line.attributes["y1"] ?? ""))
                let bottom = try #require(Double(line.attributes["y2"] ?? ""))
                for text in root.all({ $0.name == "text" }) {
                    let box = SVGPictures.estimatedBox(text)
                    guard box.y1 > top && box.y0 < bottom else { continue }
                    #expect(!(box.x0 < x && x < box.x1), "the boundary at x \(x) crosses '\(text.text)' \(box)")
                    checked += 1
                }
            }
        }
        #expect(checked > 4)
    }

    /// Witnesses at 0, 1, 2 and 5 ms: the gaps on the axis are 1 : 1 : 3, not one column each.
    @Test func theXAxisIsTimeToScaleWithSeqLabels() throws {
        let violation = Self.violation(offsetsMilliseconds: [0, 1, 2, 5])
        let root = try XMLCheck.parse(SVGTimelineRenderer.document(ViolationTimeline(violation: violation)))
        let axis = try #require(root.all { $0.attributes["class"] == "fl-time-axis" }.first)
        let ticks = axis.all { $0.attributes["class"] == "fl-tick" }
        #expect(ticks.count >= 3)
        #expect(ticks.allSatisfy { tick in tick.all { $0.name == "text" }.first?.text.hasSuffix(" ms") == true })
        let x = try SVGPictures.eventPositions(root)
        #expect(x.keys.sorted() == [1, 2, 3, 4])
        let unit = try #require(x[2]).rounded() - (try #require(x[1])).rounded()
        #expect(unit > 40)
        #expect(abs((x[3]! - x[2]!) - unit) < 1.5)
        #expect(abs((x[4]! - x[3]!) - 3 * unit) < 1.5)
        let labels = root.all { $0.attributes["class"] == "fl-seq" }.map(\.text)
        #expect(labels == ["seq 1", "seq 2", "seq 3", "seq 4"])
        // The ticks sit where their time is: 1 ms apart is `unit` pixels apart.
        let tickX = ticks.compactMap { tick in tick.all { $0.name == "line" }.first?.attributes["x1"] }.compactMap(
            Double.init)
        #expect(tickX.count >= 3)
        for (left, right) in zip(tickX, tickX.dropFirst()) {
            let remainder = (right - left).truncatingRemainder(dividingBy: unit)
            #expect(min(remainder, unit - remainder) < 1.5, "ticks at \(left) and \(right), 1 ms is \(unit)")
        }
    }

    /// A second of idle time between two bursts is cut short, marked on the axis with its length,
    /// and both bursts keep the same scale.
    @Test func anIdleGapIsCutShortAndSaysHowLong() throws {
        let violation = Self.violation(offsetsMilliseconds: [0, 1, 2, 1202, 1203])
        let root = try XMLCheck.parse(SVGTimelineRenderer.document(ViolationTimeline(violation: violation)))
        let cut = try #require(root.all { $0.attributes["class"] == "fl-break" }.first)
        #expect(cut.all { $0.name == "text" }.map(\.text) == ["gap 1.2 s"])
        let x = try SVGPictures.eventPositions(root)
        let before = x[2]! - x[1]!
        #expect(before > 40)
        #expect(abs((x[5]! - x[4]!) - before) < 1.5)
        #expect(x[4]! - x[3]! < 3 * before)  // 1.2 s drawn shorter than 3 ms
    }

    /// Two gaps cut with one instant between them put their breaks side by side, closer than their
    /// labels are wide: both labels are drawn, in the breaks' order, clear of each other and of
    /// every tick label (a trace with a 4 ms and a 331 µs gap drew them on top of each other).
    @Test func breaksSideBySideKeepBothLabelsApart() throws {
        let violation = Self.violation(offsetsMicroseconds: [0, 10, 20, 4_020, 4_351, 4_361])
        let root = try XMLCheck.parse(SVGTimelineRenderer.document(ViolationTimeline(violation: violation)))
        let breaks = root.all { $0.attributes["class"] == "fl-break" }
        #expect(breaks.map { $0.all { $0.name == "text" }.map(\.text) } == [["gap 4.0 ms"], ["gap 331 µs"]])
        let axis = try #require(root.all { $0.attributes["class"] == "fl-time-axis" }.first)
        let boxes = axis.all { $0.name == "text" }.map {
            (text: $0.text, box: SVGPictures.estimatedBox($0, fontSize: 12))
        }
        #expect(boxes.count >= 3)
        for (index, first) in boxes.enumerated() {
            for second in boxes[(index + 1)...] {
                #expect(
                    first.box.x1 <= second.box.x0 || second.box.x1 <= first.box.x0,
                    "'\(first.text)' \(first.box) and '\(second.text)' \(second.box) overlap")
            }
        }
        let lefts = breaks.compactMap { $0.all { $0.name == "text" }.first?.attributes["x"] }.compactMap(Double.init)
        #expect(lefts.count == 2 && lefts[0] < lefts[1])
    }

    /// A failed dependency's answer is the boundary of a dependency-respected violation: drawn as
    /// a line across the lanes, not only as the end of its request's bar.
    @Test func aFailedDependencysAnswerIsDrawnAsABoundary() throws {
        let violation = Violation(
            clause: .dependencyRespected, summary: "convert after a failed download", lineage: "L1",
            timeline: [
                WitnessEvent(
                    seq: 1, offsetNanoseconds: 0, event: "request.received", lineage: "L1", method: "POST",
                    path: "/jobs/1/download", note: "download requested"),
                WitnessEvent(
                    seq: 2, offsetNanoseconds: 2_000_000, event: "response.delivered", lineage: "L1", method: "POST",
                    path: "/jobs/1/download", status: 500, note: "download failed", marker: .boundary),
                WitnessEvent(
                    seq: 3, offsetNanoseconds: 3_000_000, event: "request.received", lineage: "L1", method: "POST",
                    path: "/jobs/1/convert", status: 409, note: "convert requested", marker: .offending),
            ])
        let timeline = ViolationTimeline(violation: violation)
        #expect(timeline.lanes[0].bars.first?.endSeq == 2)
        #expect(timeline.lanes[0].marks.map(\.kind) == [.boundary])
        let root = try XMLCheck.parse(SVGTimelineRenderer.document(timeline))
        #expect(root.all { $0.attributes["class"] == "fl-boundary" }.count == 1)
    }

    /// A request sent just after the logout, near the picture's right edge, with a label too long
    /// for the room left there: the label is shortened on the request's side of the boundary, not
    /// moved before it (where it would read as sent before the logout).
    @Test func aBarsLabelStaysOnItsSideOfTheBoundary() throws {
        let path = "/v1/accounts/alice/messages/archive/2026/inbox"
        let violation = Violation(
            clause: .logoutBoundary, summary: "used after logout", lineage: "L1",
            timeline: [
                WitnessEvent(
                    seq: 1, offsetNanoseconds: 0, event: "request.received", lineage: "L1", method: "GET",
                    path: "/v1/me", status: 200, note: "before"),
                WitnessEvent(
                    seq: 2, offsetNanoseconds: 1_000_000, event: "response.delivered", lineage: "L1", method: "GET",
                    path: "/v1/me", status: 200, note: "answered"),
                WitnessEvent(
                    seq: 3, offsetNanoseconds: 6_000_000, event: "lineage.logout", lineage: "L1", note: "logout",
                    marker: .boundary),
                WitnessEvent(
                    seq: 4, offsetNanoseconds: 6_400_000, event: "request.received", lineage: "L1", method: "GET",
                    path: path, status: 401, note: "late", marker: .offending),
                WitnessEvent(
                    seq: 5, offsetNanoseconds: 10_000_000, event: "response.delivered", lineage: "L1", method: "GET",
                    path: path, status: 401, note: "answered"),
            ])
        let root = try XMLCheck.parse(SVGTimelineRenderer.document(ViolationTimeline(violation: violation)))
        let group = try #require(root.all { $0.attributes["class"] == "fl-boundary" }.first)
        let line = try #require(group.all { $0.name == "line" }.first)
        let boundary = try #require(Double(line.attributes["x1"] ?? ""))
        let offendingGroups = root.all { ($0.attributes["class"] ?? "").contains("fl-offending") }
        let offending = try #require(offendingGroups.first)
        let label = try #require(offending.all { $0.name == "text" }.first)
        let labelX = try #require(Double(label.attributes["x"] ?? ""))
        #expect(labelX > boundary)
        #expect(label.text.hasPrefix("✗ GET /v1/") && label.text.hasSuffix("…"))
    }

    /// A violation whose witnesses are requests of lineage L1 received at `offsetsMilliseconds`
    /// (seq 1, 2, …), the first a logout (the boundary), the last the offending one.
    static func violation(offsetsMilliseconds: [UInt64]) -> Violation {
        violation(offsetsMicroseconds: offsetsMilliseconds.map { $0 * 1_000 })
    }

    static func violation(offsetsMicroseconds: [UInt64]) -> Violation {
        let events = offsetsMicroseconds.enumerated().map { index, microseconds in
            WitnessEvent(
                seq: UInt64(index + 1), offsetNanoseconds: microseconds * 1_000,
                event: index == 0 ? "lineage.logout" : "request.received", lineage: "L1",
                method: index == 0 ? nil : "GET", path: index == 0 ? nil : "/v1/item/\(index)",
                status: index == 0 ? nil : 401, note: index == 0 ? "logout" : "late",
                marker: index == 0 ? .boundary : index == offsetsMicroseconds.count - 1 ? .offending : .context)
        }
        return Violation(clause: .logoutBoundary, summary: "used after logout", lineage: "L1", timeline: events)
    }
}

/// XML escaping as the reports do it, for comparing text with a page.
enum MarkupText {
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&apos;")
    }
}

/// Reading the pictures back: the inline `<svg>` elements of a page, a text's box from its
/// attributes, an event's x position.
enum SVGPictures {
    static func all(in html: String) -> [String] {
        var pictures: [String] = []
        var rest = Substring(html)
        while let start = rest.range(of: "<svg "),
            let end = rest.range(of: "</svg>", range: start.upperBound..<rest.endIndex)
        {
            pictures.append(String(rest[start.lowerBound..<end.upperBound]))
            rest = rest[end.upperBound...]
        }
        return pictures
    }

    /// A box for a text element: `fontSize`-pixel characters 0.62 em wide (by default 14, wider
    /// than any font the picture uses), placed by `x`, `y` and `text-anchor`.
    static func estimatedBox(_ text: XMLCheck.Element, fontSize: Double = 14) -> (
        x0: Double, x1: Double, y0: Double, y1: Double
    ) {
        let x = Double(text.attributes["x"] ?? "") ?? 0
        let y = Double(text.attributes["y"] ?? "") ?? 0
        let width = Double(text.text.count) * fontSize * 0.62
        let x0: Double =
            switch text.attributes["text-anchor"] {
            case "middle": x - width / 2
            case "end": x - width
            default: x
            }
        return (x0, x0 + width, y - 12, y + 4)
    }

    /// seq → x of every event the seq axis labels (its `data-seq` and `data-x`).
    static func eventPositions(_ root: XMLCheck.Element) throws -> [UInt64: Double] {
        var positions: [UInt64: Double] = [:]
        for label in root.all({ $0.attributes["data-seq"] != nil && $0.attributes["data-x"] != nil }) {
            positions[UInt64(label.attributes["data-seq"]!)!] = Double(label.attributes["data-x"]!)
        }
        return positions
    }
}
