import Dispatch
import Foundation
import Testing

@testable import FaultlineTrace

/// Records `perThread` events from each of `threads` threads at once.
private func recordConcurrently(on recorder: TraceRecorder, threads: Int, perThread: Int) {
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
        for index in 0..<perThread {
            recorder.record(
                .mark,
                [
                    .int("thread", thread), .int("i", index),
                    .headers("h", [("Authorization", "Bearer t\(thread)"), ("Accept", "*/*")]),
                ])
        }
    }
}

/// Checks seq 1...n gapless in file order, monotonic time never going back, and each
/// thread's own events in the order it recorded them.
private func expectOrdered(_ trace: Trace, threads: Int, perThread: Int) {
    #expect(trace.events.count == threads * perThread)
    #expect(trace.events.map(\.seq) == Array(1...UInt64(threads * perThread)))
    var lastMono: UInt64 = 0
    var nextIndex = [Int64](repeating: 0, count: threads)
    for event in trace.events {
        #expect(event.monoNanoseconds >= lastMono)
        lastMono = event.monoNanoseconds
        guard let thread = event.int("thread"), let index = event.int("i") else {
            Issue.record("event \(event.seq) lacks its fields")
            return
        }
        #expect(index == nextIndex[Int(thread)])
        nextIndex[Int(thread)] = index + 1
    }
}

@Test func concurrentRecordsGetGaplessSeqInFileOrderInMemory() throws {
    let recorder = try memoryRecorder()
    recordConcurrently(on: recorder, threads: 8, perThread: 2_000)
    #expect(recorder.eventCount == 16_000)
    expectOrdered(try TraceReader.read(recorder.memoryContents()), threads: 8, perThread: 2_000)
}

@Test func concurrentRecordsGetGaplessSeqInFileOrderOnDisk() throws {
    let path = try temporaryDirectory().appendingPathComponent("ordering.jsonl").path
    // A short interval makes the background flusher race the recording threads and the 64 KiB drains.
    let recorder = try TraceRecorder(output: .file(path: path), flushInterval: .milliseconds(1))
    recordConcurrently(on: recorder, threads: 8, perThread: 5_000)
    recorder.close()
    expectOrdered(try TraceReader.read(contentsOfFile: path), threads: 8, perThread: 5_000)
}
