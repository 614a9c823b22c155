import Foundation
import Testing

@testable import FaultlineTrace

/// A recorder writing to memory, with no background flusher.
func memoryRecorder(_ policy: RedactionPolicy = .default) throws -> TraceRecorder {
    try TraceRecorder(output: .memory, redaction: policy, flushInterval: .zero)
}

/// Records one `mark` event with `fields` and returns its raw line and its parsed form.
func recordOne(
    _ fields: [TraceField], on recorder: TraceRecorder
) throws -> (line: String, event: TraceEvent) {
    recorder.record(.mark, fields)
    let lines = recorder.memoryContents().split(separator: "\n", omittingEmptySubsequences: false)
    let line = String(try #require(lines.dropLast().last))
    let event = try TraceReader.parseEvent(line: line, number: lines.count - 1)
    return (line, event)
}

/// The redacted value of the single header in `headers` of a fresh event.
func redactedHeader(
    _ name: String, _ value: String, on recorder: TraceRecorder
) throws -> String {
    let (_, event) = try recordOne([.headers("headers", [(name, value)])], on: recorder)
    let headers = try #require(event.headers("headers"))
    try #require(headers.count == 1)
    #expect(headers[0].name == name)
    return headers[0].value
}

/// A fresh directory under the system's temporary directory.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("faultline-trace-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Waits (polling, with a deadline) until `condition` holds; false if the deadline passed.
func eventually(within seconds: Double = 5, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(2_000)
    }
    return try condition()
}
