import Foundation
import Testing

@testable import FaultlineTrace

private let header =
    #"{"faultline_trace":1,"faultline":"0.1.0","created":"2026-11-29T13:04:52.123456Z","fingerprint":"hmac-sha256-64"}"#

private func event(_ seq: Int, _ extra: String = "") -> String {
    #"{"seq":\#(seq),"wall":"2026-11-29T13:04:52.123456Z","mono_ns":\#(seq * 10),"event":"mark"\#(extra)}"#
}

private func readError(_ text: String) -> TraceReadError? {
    #expect(throws: TraceReadError.self) { try TraceReader.read(text) }
}

@Test func badJSONNamesItsLine() throws {
    let error = try #require(readError([header, event(1), #"{"seq":2,"wall":"x","#, event(3)].joined(separator: "\n")))
    #expect(error.line == 3)
    #expect(error.description.hasPrefix("line 3: column "))
}

@Test func aMissingHeaderIsAnErrorOnLineOne() throws {
    #expect(readError([event(1), event(2)].joined(separator: "\n"))?.line == 1)
    #expect(readError("")?.line == 1)
    #expect(readError("\n")?.line == 1)
    #expect(readError("not json\n")?.line == 1)
    #expect(readError("[1]\n")?.line == 1)
    let wrongType = try #require(readError(#"{"faultline_trace":"1"}"#))
    #expect(wrongType.line == 1)
    #expect(wrongType.message.contains("integer"))
}

@Test func anUnknownVersionIsAnErrorOnLineOne() throws {
    let error = try #require(readError(#"{"faultline_trace":2,"faultline":"9.0.0"}"# + "\n"))
    #expect(error.line == 1)
    #expect(error.message.contains("version 2"))
}

@Test func aTruncatedLastLineIsAnError() throws {
    let whole = [header, event(1), event(2, #","headers":[["Host","a"]]"#)].joined(separator: "\n") + "\n"
    #expect(try TraceReader.read(whole).events.count == 2)
    // Every cut inside the last line is reported on that line.
    let lastLineStart = whole.dropLast().lastIndex(of: "\n")!
    var cut = whole.index(after: whole.index(after: lastLineStart))
    while cut < whole.index(before: whole.endIndex) {
        let error = try #require(
            readError(String(whole[..<cut])), "cut at \(whole.distance(from: whole.startIndex, to: cut))")
        #expect(error.line == 3)
        cut = whole.index(after: cut)
    }
    #expect(readError(String(whole[..<whole.index(before: whole.endIndex)]) + "}")?.line == 3)
}

@Test func wrongFieldTypesNameTheLineAndTheKey() throws {
    let cases: [(String, String)] = [
        (#"{"seq":"1","wall":"w","mono_ns":1,"event":"mark"}"#, "\"seq\" must be a positive integer, found a string"),
        (#"{"seq":0,"wall":"w","mono_ns":1,"event":"mark"}"#, "\"seq\" must be a positive integer, found 0"),
        (#"{"seq":1.5,"wall":"w","mono_ns":1,"event":"mark"}"#, "\"seq\" must be a positive integer, found a number"),
        (#"{"seq":true,"wall":"w","mono_ns":1,"event":"mark"}"#, "\"seq\" must be a positive integer, found a boolean"),
        (#"{"wall":"w","mono_ns":1,"event":"mark"}"#, "\"seq\" is missing"),
        (#"{"seq":1,"mono_ns":1,"event":"mark"}"#, "\"wall\" is missing"),
        (#"{"seq":1,"wall":7,"mono_ns":1,"event":"mark"}"#, "\"wall\" must be a string, found an integer"),
        (#"{"seq":1,"wall":"w","event":"mark"}"#, "\"mono_ns\" is missing"),
        (#"{"seq":1,"wall":"w","mono_ns":-1,"event":"mark"}"#, "\"mono_ns\" must be a non-negative integer, found -1"),
        (#"{"seq":1,"wall":"w","mono_ns":1}"#, "\"event\" is missing"),
        (#"{"seq":1,"wall":"w","mono_ns":1,"event":null}"#, "\"event\" must be a string, found null"),
        (
            #"{"seq":1,"wall":"w","mono_ns":1,"event":"mark","conn":"3"}"#,
            "\"conn\" must be a non-negative integer, found a string"
        ),
        (
            #"{"seq":1,"wall":"w","mono_ns":1,"event":"mark","flow":[7]}"#,
            "\"flow\" must be a non-negative integer, found an array"
        ),
        (#"["seq",1]"#, "an event line must be a JSON object, found an array"),
    ]
    for (line, message) in cases {
        let error = try #require(readError([header, event(1), line].joined(separator: "\n")), "\(line)")
        #expect(error == TraceReadError(line: 3, message: message))
        // The line-by-line entry point agrees.
        #expect(throws: TraceReadError(line: 9, message: message)) { try TraceReader.parseEvent(line: line, number: 9) }
    }
}

@Test func blankLinesAreAllowedOnlyAtTheEnd() throws {
    #expect(try TraceReader.read([header, event(1), "", "  ", ""].joined(separator: "\n")).events.count == 1)
    #expect(try TraceReader.read([header, event(1)].joined(separator: "\n")).events.count == 1)
    #expect(readError([header, event(1), "", event(2)].joined(separator: "\n"))?.line == 3)
}

@Test func crlfLineEndsAreAccepted() throws {
    #expect(try TraceReader.read([header, event(1), event(2)].joined(separator: "\r\n") + "\r\n").events.count == 2)
}

@Test func seqMustIncrease() throws {
    let error = try #require(readError([header, event(1), event(3), event(3)].joined(separator: "\n")))
    #expect(error.line == 4)
    #expect(readError([header, event(2), event(1)].joined(separator: "\n"))?.line == 3)
    // Gaps are allowed: a filtered trace is still a trace.
    #expect(try TraceReader.read([header, event(1), event(5)].joined(separator: "\n")).events.count == 2)
}

@Test func duplicateKeysAreRejected() throws {
    let error = try #require(readError([header, event(1, #","seq":2"#)].joined(separator: "\n")))
    #expect(error.line == 2)
    #expect(error.message.contains("duplicate key \"seq\""))
}

@Test func invalidUTF8InAFileNamesItsLine() throws {
    let path = try temporaryDirectory().appendingPathComponent("bad-utf8.jsonl").path
    var bytes = Array((header + "\n" + event(1) + "\n").utf8)
    bytes += Array(#"{"seq":2,"wall":"w","mono_ns":1,"event":"mark","x":""#.utf8) + [0xFF, 0xFE] + Array("\"}\n".utf8)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let error = #expect(throws: TraceReadError.self) { try TraceReader.read(contentsOfFile: path) }
    #expect(error?.line == 3)
    #expect(error?.message.contains("UTF-8") == true)
}

@Test func aMissingFileIsAnError() throws {
    let path = try temporaryDirectory().appendingPathComponent("absent.jsonl").path
    #expect(throws: (any Error).self) { try TraceReader.read(contentsOfFile: path) }
}

@Test func parserRejectsMalformedJSON() throws {
    let malformed = [
        "{", "{\"a\"", "{\"a\":}", "{\"a\":1,}", "[1,]", "{\"a\":01}", "{\"a\":1.}", "{\"a\":-}", "{\"a\":1e}",
        "{\"a\":tru}", "{\"a\":\"\\x\"}", "{\"a\":\"\\ud800\"}", "{\"a\":\"\\udc00\"}", "{\"a\":\"\t\"}", "{a:1}",
        "{\"a\":1} x", "{\"a\":1e999}", String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
    ]
    for text in malformed {
        #expect(throws: TraceReadError.self, "\(text)") { try TraceReader.parseEvent(line: text, number: 2) }
    }
}
