import FaultlineContract
import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `faultline check` as a user runs it: the built binary on files in a temporary folder.
@Suite struct CheckCommandTests {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// The `faultline` binary next to the test bundle (SwiftPM builds every product before testing).
    static func binary() throws -> URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidate = bundle.appendingPathComponent("faultline")
        try #require(
            FileManager.default.isExecutableFile(atPath: candidate.path), "no faultline binary at \(candidate.path)")
        return candidate
    }

    /// Runs `faultline check ARGS` with a 30 s deadline; a hang fails the test.
    static func check(_ arguments: [String], stdin: String? = nil) throws -> Run {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = ["check"] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a large report cannot fill a pipe and stall.
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        if exited.wait(timeout: .now() + 30) == .timedOut {
            process.terminate()
            Issue.record("faultline check did not exit within 30 s")
        }
        return Run(
            status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self))
    }

    /// A fresh temporary folder with the given files.
    static func folder(_ files: [String: String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "faultline-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    static func passingTrace() -> String {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        trace.exchange("GET", "/v1/messages", status: 200, lineage: "L1", credentials: ["access:a1"])
        trace.logout("L1", credentials: ["access:a1"])
        return trace.text
    }

    static func failingTrace() -> String {
        var trace = TraceBuilder()
        trace.login("L1", access: "a1", refresh: "r1")
        trace.logout("L1", credentials: ["access:a1"])
        trace.exchange("GET", "/v1/messages", status: 401, lineage: "L1", credentials: ["access:a1"])
        return trace.text
    }

    @Test func exitsZeroWhenTheContractHolds() throws {
        let folder = try Self.folder(["t.jsonl": Self.passingTrace()])
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.check([folder.appendingPathComponent("t.jsonl").path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("PASSED"))
        #expect(run.stdout.contains("✓ logout-boundary"))
    }

    @Test func exitsOneWithViolationsAndPrintsTheTimeline() throws {
        let folder = try Self.folder(["t.jsonl": Self.failingTrace()])
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.check([folder.appendingPathComponent("t.jsonl").path])
        #expect(run.status == 1)
        #expect(run.stdout.contains("FAILED: 1 violation of logout-boundary"))
        #expect(run.stdout.contains("✗ logout-boundary"))
        #expect(run.stdout.contains("─▶ seq"))
        #expect(run.stdout.contains("✗▶ seq"))
        #expect(run.stdout.contains("GET /v1/messages → 401"))
    }

    @Test func readsStandardInput() throws {
        let run = try Self.check(["-"], stdin: Self.failingTrace())
        #expect(run.status == 1)
        #expect(run.stdout.contains("standard input: FAILED"))
    }

    @Test func writesJSONAndJUnitToAFile() throws {
        let folder = try Self.folder(["t.jsonl": Self.failingTrace()])
        defer { try? FileManager.default.removeItem(at: folder) }
        let trace = folder.appendingPathComponent("t.jsonl").path
        let jsonPath = folder.appendingPathComponent("report.json").path
        let json = try Self.check([trace, "--format", "json", "--output", jsonPath])
        #expect(json.status == 1)
        #expect(json.stdout.isEmpty)
        #expect(json.stderr.contains("FAILED"))
        let data = try #require(FileManager.default.contents(atPath: jsonPath))
        let report = try JSONDecoder().decode(ContractReport.self, from: data)
        #expect(report.brokenClauses == [.logoutBoundary])
        let junit = try Self.check([trace, "--format=junit"])
        #expect(junit.status == 1)
        #expect(junit.stdout.hasPrefix("<?xml"))
    }

    @Test func exitsTwoOnAMalformedLineNamingIt() throws {
        var lines = Self.passingTrace().split(separator: "\n").map(String.init)
        lines[3] = #"{"seq":3,"wall":"x","mono_ns":1,"event":"request.received","#
        let folder = try Self.folder(["bad.jsonl": lines.joined(separator: "\n") + "\n"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("bad.jsonl").path
        let run = try Self.check([path])
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("\(path):4: column"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        // With JUnit, CI still gets a report: one failing case carrying the error, and exit 2.
        let junit = try Self.check([path, "--format", "junit"])
        #expect(junit.status == 2)
        #expect(junit.stderr.hasPrefix("\(path):4: column"), "\(junit.stderr)")
        let failures = try #require(Self.junitFailures(junit.stdout), "\(junit.stdout)")
        #expect(failures.count == 1)
        #expect(failures["usable-input"]?.hasPrefix("\(path):4: column") == true, "\(failures)")
    }

    @Test func exitsTwoOnUnusableInput() throws {
        let folder = try Self.folder([
            "t.jsonl": Self.passingTrace(),
            "bad.contract.json5": "{\n  clauses: { \"exactly-onse\": true },\n}\n",
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let trace = folder.appendingPathComponent("t.jsonl").path
        let missing = try Self.check([folder.appendingPathComponent("nope.jsonl").path])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no such file"))
        let contract = folder.appendingPathComponent("bad.contract.json5").path
        let badContract = try Self.check([trace, "--contract", contract])
        #expect(badContract.status == 2)
        #expect(
            badContract.stderr.contains(
                "\(contract):2:14: unknown clause 'exactly-onse' in 'clauses' (did you mean 'exactly-once'?)"),
            "\(badContract.stderr)")
        let usage = try Self.check([trace, "--format", "xml"])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("unknown format 'xml'"))
        #expect(try Self.check([]).status == 2)
        let help = try Self.check(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("usage: faultline check TRACE"))
    }

    @Test func aContractFileTurnsAClauseOff() throws {
        let folder = try Self.folder([
            "t.jsonl": Self.failingTrace(), "off.json5": "{ clauses: { 'logout-boundary': false } }",
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Self.check([
            folder.appendingPathComponent("t.jsonl").path, "--contract",
            folder.appendingPathComponent("off.json5").path,
        ])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.contains("- logout-boundary: disabled by the contract"))
    }

    // MARK: Unusable input (issue 9): a clear error, and a JUnit report even then

    @Test func aMissingContractFileSaysItDoesNotExist() throws {
        let folder = try Self.folder(["t.jsonl": Self.passingTrace()])
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("missing.json5").path
        let run = try Self.check([folder.appendingPathComponent("t.jsonl").path, "--contract", missing])
        #expect(run.status == 2)
        #expect(run.stderr == "faultline check: the contract file \(missing) does not exist\n", "\(run.stderr)")
        #expect(!run.stderr.contains(":1:1"))
        #expect(run.stdout.isEmpty)
    }

    /// The `<failure message>` of every case of a JUnit report, by case name; nil if it does not parse.
    static func junitFailures(_ xml: String) -> [String: String]? {
        let parser = XMLParser(data: Data(xml.utf8))
        let reader = ReportFormatTests.JUnitReader()
        parser.delegate = reader
        guard parser.parse() else { return nil }
        return reader.failureMessages
    }

    @Test func junitOnUnusableInputGoesToTheOutputFile() throws {
        let folder = try Self.folder([
            "t.jsonl": Self.passingTrace(), "bad.contract.json5": "{\n  clauses: { \"exactly-onse\": true },\n}\n",
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let trace = folder.appendingPathComponent("t.jsonl").path
        let report = folder.appendingPathComponent("report.xml").path
        let cases: [(arguments: [String], message: String)] = [
            ([folder.appendingPathComponent("nope.jsonl").path], "no such file"),
            ([trace, "--contract", folder.appendingPathComponent("bad.contract.json5").path], "1 error in"),
            ([trace, "--contract", folder.appendingPathComponent("none.json5").path], "does not exist"),
            ([], "a trace file is required"),
        ]
        for (arguments, message) in cases {
            try? FileManager.default.removeItem(atPath: report)
            let run = try Self.check(arguments + ["--format", "junit", "--output", report])
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.contains(message), "\(run.stderr)")
            let xml = try String(contentsOfFile: report, encoding: .utf8)
            let failures = try #require(Self.junitFailures(xml), "\(xml)")
            #expect(failures.keys.sorted() == ["usable-input"])
            #expect(failures["usable-input"]?.contains(message) == true, "\(failures)")
        }
        // The contract's errors themselves are in the failure's text, with their positions.
        let run = try Self.check([
            trace, "--contract", folder.appendingPathComponent("bad.contract.json5").path, "--format", "junit",
        ])
        #expect(run.stdout.contains(":2:14: unknown clause &apos;exactly-onse&apos;"), "\(run.stdout)")
    }

    @Test func otherFormatsWriteNoReportOnUnusableInput() throws {
        let folder = try Self.folder([:])
        defer { try? FileManager.default.removeItem(at: folder) }
        for format in ["text", "json"] {
            let run = try Self.check([folder.appendingPathComponent("nope.jsonl").path, "--format", format])
            #expect(run.status == 2 && run.stdout.isEmpty && run.stderr.contains("no such file"))
        }
    }
}
