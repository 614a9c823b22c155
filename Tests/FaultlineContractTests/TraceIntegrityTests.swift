import FaultlineContract
import FaultlineCore
import FaultlineTrace
import Foundation
import Testing

/// The checker's checks on the trace itself, and the streaming file reader.
@Suite struct TraceIntegrityTests {
    static func header() -> TraceHeader {
        TraceHeader(formatVersion: 1, faultlineVersion: "t", created: "", fingerprint: "hmac-sha256-64")
    }

    static func event(
        _ seq: UInt64, _ kind: TraceEventKind = "mark", mono: UInt64? = nil, _ attributes: [String: JSONValue] = [:]
    )
        -> TraceEvent
    {
        TraceEvent(seq: seq, wall: "w", monoNanoseconds: mono ?? seq * 1000, kind: kind, attributes: attributes)
    }

    static func check(_ events: [TraceEvent]) -> ContractReport {
        ContractChecker.check(Trace(header: header(), events: events))
    }

    @Test func gaplessTracePasses() {
        #expect(Self.check([Self.event(1), Self.event(2), Self.event(3)]).traceProblems.isEmpty)
    }

    @Test func seqGapsAndDisorderAreReported() {
        let report = Self.check([
            Self.event(2), Self.event(3), Self.event(5), Self.event(9), Self.event(9), Self.event(10, mono: 1),
        ])
        #expect(report.traceProblems.map(\.kind) == [.seqGap, .seqGap, .seqGap, .seqOrder, .clockOrder])
        #expect(report.traceProblems[0].message == "the first event has seq 2: 1 earlier event is missing")
        #expect(report.traceProblems[1].message == "seq jumps from 3 to 5: 1 event is missing")
        #expect(report.traceProblems[2].message == "seq jumps from 5 to 9: 3 events are missing")
        #expect(report.traceProblems[2].seq == 9)
        #expect(!report.passed)
        #expect(report.violations.isEmpty)
    }

    static func request(headers: [(String, String)], url: String = "http://api.test/x") -> TraceEvent {
        let list = JSONValue.array(headers.map { .array([.string($0.0), .string($0.1)]) })
        return event(1, .requestReceived, ["method": .string("GET"), "url": .string(url), "headers": list])
    }

    static func secretProblems(headers: [(String, String)], url: String = "http://api.test/x") -> [String] {
        check([request(headers: headers, url: url)]).traceProblems.filter { $0.kind == .rawSecret }.map(\.message)
    }

    @Test func fingerprintedCredentialsPass() {
        let fp = TraceBuilder.fp("x")
        #expect(
            Self.secretProblems(
                headers: [
                    ("Authorization", "Bearer \(fp)"), ("Proxy-Authorization", fp),
                    ("Cookie", "sid=\(fp); theme=\(fp); empty="),
                    ("Set-Cookie", "sid=\(fp); Path=/; HttpOnly; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Custom=\(fp)"),
                    ("Location", "https://u:\(fp)@h/cb?code=\(fp)#access_token=\(fp)&state=ok"),
                ],
                url: "http://user:\(fp)@api.test/x?access_token=\(fp)&page=2"
            ).isEmpty)
    }

    @Test func clearCredentialsAreFoundWithoutRepeatingThem() {
        let secret = "s3cr3t-value"
        let problems = Self.secretProblems(
            headers: [
                ("Authorization", "Bearer \(secret)"), ("Cookie", "sid=\(secret)"),
                ("Set-Cookie", "sid=\(secret); Path=/"),
                ("Authorization", secret),
            ],
            url: "http://user:\(secret)@api.test/x?page=1&password=\(secret)")
        #expect(problems.count == 5, "\(problems)")
        #expect(problems.contains { $0.contains("the Authorization header is not 'Scheme fp:…'") })
        #expect(problems.contains { $0.contains("a cookie in the Cookie header") })
        #expect(problems.contains { $0.contains("'url' shows a password in clear") })
        #expect(problems.allSatisfy { !$0.contains(secret) })
        #expect(Self.secretProblems(headers: [], url: "/cb?Access%5FToken=\(secret)").count == 1)
    }

    @Test func credentialListsMustBeFingerprints() {
        let event = Self.event(
            1, "lineage.login",
            [
                "lineage": .string("L1"),
                "issued": .array([.string("access=\(TraceBuilder.fp("a"))"), .string("refresh=clear")]),
            ])
        let problems = Self.check([event]).traceProblems
        #expect(
            problems.map(\.message) == [
                "lineage.login at seq 1: an entry of 'issued' is not kind=fp:… (a secret may be in clear)"
            ])
    }

    // MARK: Streaming reader

    static func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString).jsonl")
            .path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func streamingGivesTheSameReportAsReadingWhole() throws {
        let trace = CheckCommandTests.failingTrace()
        let path = try Self.write(trace.replacingOccurrences(of: "\n", with: "\r\n") + "\n\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let streamed = try TraceFileReader.check(path: path)
        let whole = ContractChecker.check(try TraceReader.read(trace))
        #expect(streamed == whole)
        #expect(streamed.brokenClauses == [.logoutBoundary])
    }

    @Test func streamingSplitsLinesAcrossChunks() throws {
        // Lines longer than nothing in particular: a 3 MiB trace crosses the 1 MiB chunks mid-line.
        var builder = TraceBuilder()
        let padding = String(repeating: "p", count: 5000)
        for index in 0..<700 { builder.mark("m\(index) \(padding)") }
        let path = try Self.write(builder.text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var seqs: [UInt64] = []
        try TraceFileReader.read(path: path, header: { _ in }, event: { seqs.append($0.seq) })
        #expect(seqs == Array(1...700))
    }

    static func readError(_ text: String) throws -> String {
        let path = try write(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            try TraceFileReader.read(path: path, header: { _ in }, event: { _ in })
        } catch {
            return error.description.replacingOccurrences(of: path, with: "T")
        }
        return "no error"
    }

    @Test func malformedLinesAreReportedByNumber() throws {
        let header = TraceBuilder().lines[0]
        let good = #"{"seq":1,"wall":"w","mono_ns":1,"event":"mark"}"#
        #expect(try Self.readError("") == "T:1: empty trace: the header line is missing")
        #expect(try Self.readError("\n\n") == "T:1: empty trace: the header line is missing")
        #expect(
            try Self.readError("\(header)\n\(good)\n{\"seq\":2,\n")
                == "T:3: column 10: line ends where an object key was expected (truncated line?)")
        #expect(try Self.readError("\(header)\n\n\(good)\n") == "T:2: blank line in the middle of the trace")
        #expect(
            try Self.readError("\(header)\n\(good)\n\(good)\n") == "T:3: seq 1 does not follow seq 1 of the line before"
        )
        #expect(try Self.readError("{\"faultline_trace\":9}\n").hasPrefix("T:1: unsupported trace format version 9"))
        #expect(try Self.readError("\(header)\n\(good)\n\n\n") == "no error")
        #expect(try Self.readError("\(header)\n\(good)") == "no error")  // no final newline
        let missing = try Self.readError("x").replacingOccurrences(of: "T", with: "")
        #expect(!missing.isEmpty)
        do {
            try TraceFileReader.read(path: "/nonexistent/t.jsonl", header: { _ in }, event: { _ in })
            Issue.record("reading a missing file succeeded")
        } catch {
            #expect(error.description == "/nonexistent/t.jsonl: no such file")
        }
    }
}
