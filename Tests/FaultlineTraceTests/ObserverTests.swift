import Dispatch
import Foundation
import Synchronization
import Testing

@testable import FaultlineTrace

/// Trace observers run outside the recorder's lock, in `seq` order, and `removeObserver` waits
/// for a delivery in progress; `recentLines` and `TraceLines` give a viewer the past.
@Suite struct ObserverTests {
    /// The `seq`s an observer heard, in the order it heard them.
    private final class Heard: Sendable {
        let seqs = Mutex<[UInt64]>([])
        func append(_ line: UnsafeBufferPointer<UInt8>) {
            let seq = TraceLines.seq(of: line)
            seqs.withLock { $0.append(seq ?? 0) }
        }
    }

    @Test func concurrentRecordsReachEveryObserverInSeqOrderWithoutGaps() throws {
        let recorder = try TraceRecorder(output: .memory, flushInterval: .zero)
        recorder.record(.mark, [.string("label", "before")])
        let first = Heard()
        let second = Heard()
        let token = recorder.addObserver { first.append($0) }
        #expect(token.subscribedAfter == 1)
        recorder.addObserver { second.append($0) }
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<500 { recorder.record(.mark, [.int("thread", thread), .int("i", index)]) }
        }
        let expected = Array(2...UInt64(2001))
        #expect(first.seqs.withLock { $0 } == expected)
        #expect(second.seqs.withLock { $0 } == expected)
    }

    @Test func aSlowObserverDoesNotStallOtherRecordingThreads() throws {
        let recorder = try TraceRecorder(output: .memory, flushInterval: .zero)
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let heard = Heard()
        let heardBoth = DispatchSemaphore(value: 0)
        let token = recorder.addObserver { line in
            if heard.seqs.withLock({ $0.isEmpty }) {
                entered.signal()
                // The first delivery blocks until the test opens the gate (bounded, so a broken
                // build fails instead of hanging).
                _ = gate.wait(timeout: .now() + 10)
            }
            heard.append(line)
            if heard.seqs.withLock({ $0.count }) == 2 { heardBoth.signal() }
        }
        let slowRecorder = Thread { recorder.record(.mark, [.string("label", "first")]) }
        slowRecorder.start()
        #expect(entered.wait(timeout: .now() + 5) == .success, "the observer was never called")
        // With the observer stuck in its first call, other threads still record at once.
        let recorded = DispatchSemaphore(value: 0)
        let other = Thread {
            recorder.record(.mark, [.string("label", "second")])
            recorded.signal()
        }
        other.start()
        let recordReturned = recorded.wait(timeout: .now() + 5)
        #expect(recordReturned == .success, "record waited for a slow observer")
        #expect(recorder.eventCount == 2)
        gate.signal()
        // The delivering thread hands the second line over too, once the first call returns.
        #expect(heardBoth.wait(timeout: .now() + 5) == .success, "the line recorded meanwhile was never delivered")
        #expect(heard.seqs.withLock { $0 } == [1, 2])
        recorder.removeObserver(token)
    }

    @Test func removeObserverWaitsForADeliveryInProgress() throws {
        let recorder = try TraceRecorder(output: .memory, flushInterval: .zero)
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let finished = Atomic<Bool>(false)
        let token = recorder.addObserver { _ in
            entered.signal()
            _ = gate.wait(timeout: .now() + 10)
            finished.store(true, ordering: .sequentiallyConsistent)
        }
        Thread { recorder.record(.mark) }.start()
        #expect(entered.wait(timeout: .now() + 5) == .success)
        let removed = DispatchSemaphore(value: 0)
        let returnedAfterTheCall = Atomic<Bool>(false)
        Thread {
            recorder.removeObserver(token)
            returnedAfterTheCall.store(
                finished.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
            removed.signal()
        }.start()
        // removeObserver must still be waiting while the call is in progress.
        #expect(removed.wait(timeout: .now() + 0.2) == .timedOut)
        gate.signal()
        #expect(removed.wait(timeout: .now() + 5) == .success)
        let sawTheCallFinish = returnedAfterTheCall.load(ordering: .sequentiallyConsistent)
        #expect(sawTheCallFinish)
        // And it is never called again.
        recorder.record(.mark)
        #expect(recorder.observerCount == 0)
    }

    @Test func recentLinesAreWholeLinesEndingWithTheLastInMemoryAndInAFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "faultline-recent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for output in [TraceOutput.memory, .file(path: folder.appendingPathComponent("t.jsonl").path)] {
            let recorder = try TraceRecorder(output: output, flushInterval: .zero)
            for index in 0..<100 { recorder.record(.mark, [.int("i", index)]) }
            let all = recorder.recentLines(maxBytes: 1 << 20)
            #expect(String(decoding: all, as: UTF8.self).hasPrefix("{\"faultline_trace\""))
            #expect(TraceLines.count(in: all) == 101)
            for limit in [1, 50, 333, 1000, 5000] {
                let tail = recorder.recentLines(maxBytes: limit)
                #expect(tail.count <= limit)
                let lines = String(decoding: tail, as: UTF8.self).split(separator: "\n")
                #expect(tail.isEmpty || tail.last == UInt8(ascii: "\n"))
                // Every line is whole, and they are the last ones.
                let seqs = lines.map { TraceLines.seq(of: Array($0.utf8)) }
                #expect(!seqs.contains(nil))
                if let last = seqs.last { #expect(last == 100) }
                #expect(seqs.compactMap { $0 } == Array((101 - UInt64(seqs.count))..<101))
            }
            recorder.close()
        }
        let standardOutput = try TraceRecorder(output: .standardOutput, flushInterval: .zero)
        #expect(standardOutput.recentLines(maxBytes: 1000).isEmpty)
    }

    @Test func traceLinesReadsSeqAndCutsAfterOne() {
        #expect(TraceLines.seq(of: Array(#"{"seq":42,"wall":"x"}"#.utf8)) == 42)
        #expect(TraceLines.seq(of: Array(#"{"faultline_trace":1}"#.utf8)) == nil)
        #expect(TraceLines.seq(of: Array(#"{"seq":}"#.utf8)) == nil)
        #expect(TraceLines.seq(of: Array(#"{"seq":99999999999999999999999}"#.utf8)) == nil)
        let text = "{\"faultline_trace\":1}\n{\"seq\":1}\n{\"seq\":2}\n{\"seq\":3}\n"
        #expect(
            String(decoding: TraceLines.prefix(Array(text.utf8), throughSeq: 2), as: UTF8.self)
                == "{\"faultline_trace\":1}\n{\"seq\":1}\n{\"seq\":2}\n")
        #expect(
            String(decoding: TraceLines.prefix(Array(text.utf8), throughSeq: 0), as: UTF8.self)
                == "{\"faultline_trace\":1}\n")
        #expect(TraceLines.prefix(Array(text.utf8), throughSeq: 9).count == text.utf8.count)
        #expect(TraceLines.count(in: Array(text.utf8)) == 4)
    }
}
