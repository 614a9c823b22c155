import FaultlineCore
import Foundation
import Testing

@testable import FaultlineTrace

/// What follows `"event"` in each line of a memory trace (the stamp before it differs per line).
private func eventParts(_ recorder: TraceRecorder) -> [Substring] {
    recorder.memoryContents().split(separator: "\n").dropFirst().map { line in
        line[line.range(of: "\"event\"")!.lowerBound...]
    }
}

@Test func anEventEncodedInAScratchBufferIsTheSameLine() throws {
    let recorder = try memoryRecorder()
    let fields: [TraceField] = [
        .headers("headers", [("Authorization", "Bearer t-1"), ("Accept", "*/*")]), .target("url", "/a?code=c-1"),
        .int("status", 200),
    ]
    var scratch = TraceScratch()
    recorder.record(.requestReceived, connection: ConnectionID(3), flow: FlowID(4), fields)
    recorder.record(.requestReceived, connection: ConnectionID(3), flow: FlowID(4), fields, encodingIn: &scratch)
    let parts = eventParts(recorder)
    #expect(parts.count == 2)
    #expect(parts[0] == parts[1])
}

@Test func aScratchBufferCarriesEachEventWholeAfterABurst() throws {
    let recorder = try memoryRecorder()
    var scratch = TraceScratch()
    let big = String(repeating: "b", count: 100_000)
    recorder.record(.mark, [.string("label", big)], encodingIn: &scratch)
    recorder.record(.mark, [.string("label", "small")], encodingIn: &scratch)
    recorder.record(.mark, [.string("label", "next")], encodingIn: &scratch)
    let events = try TraceReader.read(recorder.memoryContents()).events
    #expect(events.map { $0.string("label")?.count } == [100_000, 5, 4])
}
