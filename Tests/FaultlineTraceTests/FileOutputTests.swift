import Foundation
import Testing

@testable import FaultlineTrace

private func fileText(_ path: String) throws -> String {
    try String(contentsOfFile: path, encoding: .utf8)
}

@Test func flushMakesEventsReadableWhileTheRecorderIsOpen() throws {
    let path = try temporaryDirectory().appendingPathComponent("open.jsonl").path
    let recorder = try TraceRecorder(output: .file(path: path), flushInterval: .zero)
    // The header is on disk from the start, so even an empty trace reads.
    #expect(try TraceReader.read(contentsOfFile: path).events.isEmpty)
    for index in 0..<10 { recorder.record(.mark, [.int("i", index)]) }
    recorder.flush()
    let text = try fileText(path)
    #expect(text.hasSuffix("\n"))
    let trace = try TraceReader.read(text)
    #expect(trace.events.map(\.seq) == Array(1...10))
    recorder.record(.mark)
    recorder.flush()
    #expect(try TraceReader.read(contentsOfFile: path).events.count == 11)
    recorder.close()
}

@Test func closeWritesEverythingAndLaterRecordsAreIgnored() throws {
    let path = try temporaryDirectory().appendingPathComponent("closed.jsonl").path
    let recorder = try TraceRecorder(output: .file(path: path), flushInterval: .zero)
    for index in 0..<100 { recorder.record(.mark, [.int("i", index)]) }
    recorder.close()
    let afterClose = try fileText(path)
    #expect(afterClose.hasSuffix("\n"))
    #expect(try TraceReader.read(afterClose).events.count == 100)
    recorder.record(.mark)
    recorder.flush()
    recorder.close()
    #expect(recorder.eventCount == 100)
    #expect(try fileText(path) == afterClose)
}

@Test func aFullBufferIsWrittenAsWholeLinesWithoutAFlush() throws {
    let path = try temporaryDirectory().appendingPathComponent("threshold.jsonl").path
    let recorder = try TraceRecorder(output: .file(path: path), flushInterval: .zero)
    defer { recorder.close() }
    let padding = String(repeating: "x", count: 1000)
    var recorded = 0
    // Past 64 KiB the recorder must write on its own.
    while recorded < 200 {
        recorder.record(.mark, [.string("padding", padding)])
        recorded += 1
    }
    let text = try fileText(path)
    #expect(text.hasSuffix("\n"))
    let onDisk = try TraceReader.read(text).events.count
    #expect(onDisk >= 60)
    #expect(onDisk < recorded)
}

@Test func theBackgroundFlusherWritesWithoutBeingAsked() throws {
    let path = try temporaryDirectory().appendingPathComponent("tail.jsonl").path
    let recorder = try TraceRecorder(output: .file(path: path), flushInterval: .milliseconds(10))
    defer { recorder.close() }
    recorder.record(.mark, [.string("label", "tail -f")])
    let seen = try eventually { try TraceReader.read(contentsOfFile: path).events.count == 1 }
    #expect(seen, "the event did not reach the file within the deadline")
}

@Test func releasingTheRecorderClosesIt() throws {
    let path = try temporaryDirectory().appendingPathComponent("deinit.jsonl").path
    do {
        let recorder = try TraceRecorder(output: .file(path: path), flushInterval: .milliseconds(50))
        recorder.record(.mark)
    }
    #expect(try TraceReader.read(contentsOfFile: path).events.count == 1)
}

@Test func anUnopenableFileIsAnError() throws {
    let path = try temporaryDirectory().appendingPathComponent("missing/dir/trace.jsonl").path
    #expect(throws: TraceRecorderError.self) { try TraceRecorder(output: .file(path: path)) }
}

@Test func aFullDiskFailsTheHeaderWriteAtStart() throws {
    try #require(FileManager.default.fileExists(atPath: "/dev/full"))
    let error = #expect(throws: TraceRecorderError.self) { try TraceRecorder(output: .file(path: "/dev/full")) }
    #expect(error?.message.contains("failed") == true)
}

@Test func aWriteErrorIsReportedOnceAndTheSinkStops() throws {
    try #require(FileManager.default.fileExists(atPath: "/dev/full"))
    var sink = try TraceSink.openFile(path: "/dev/full")
    defer { sink.closeDescriptor() }
    let line = Array("{\"a\":1}\n".utf8)
    #expect(line.withUnsafeBufferPointer { sink.writeAll($0) } != nil)
    #expect(sink.failed)
    #expect(line.withUnsafeBufferPointer { sink.writeAll($0) } == nil)
}

@Test func memoryContentsIsEmptyForOtherOutputs() throws {
    let path = try temporaryDirectory().appendingPathComponent("other.jsonl").path
    let recorder = try TraceRecorder(output: .file(path: path), flushInterval: .zero)
    recorder.record(.mark)
    #expect(recorder.memoryContents() == "")
    recorder.close()
}
