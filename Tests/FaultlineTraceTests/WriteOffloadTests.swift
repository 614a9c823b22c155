import Foundation
import Testing

@testable import FaultlineTrace

/// A full buffer is written by the flusher thread, not by the thread that records: an event loop
/// never waits for the disk. The trace goes to a FIFO that nobody reads until the recording is
/// done, so a write on the recording thread would block it there.
@Test func aRecordingThreadDoesNotWaitForTheWrite() throws {
    let path = try temporaryDirectory().appendingPathComponent("slow-disk.fifo").path
    try #require(mkfifo(path, 0o600) == 0)
    // A reader end held open (not read) lets the writer open the FIFO without blocking.
    let reader = open(path, O_RDONLY | O_NONBLOCK)
    try #require(reader >= 0)
    defer { close(reader) }
    // The interval is long: only the wake at 64 KiB can make the flusher write during the test.
    let recorder = try TraceRecorder(output: .file(path: path), flushInterval: .seconds(60))

    // 400 events of 1 KiB: far past the pipe's 64 KiB, far below the 8 MiB back-pressure bound.
    let done = DispatchSemaphore(value: 0)
    let padding = String(repeating: "x", count: 1000)
    Thread.detachNewThread {
        for _ in 0..<400 { recorder.record(.mark, [.string("padding", padding)]) }
        done.signal()
    }
    let finished = done.wait(timeout: .now() + 10) == .success
    #expect(finished, "record waited for a write to a FIFO nobody reads")

    // Now read: the flusher's blocked write goes through, and close() gets the rest out.
    var received: [UInt8] = []
    let drained = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        recorder.close()
        drained.signal()
    }
    var chunk = [UInt8](repeating: 0, count: 65536)
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
        let count = read(reader, &chunk, chunk.count)
        if count > 0 { received.append(contentsOf: chunk[..<count]) }
        if drained.wait(timeout: .now()) == .success {
            while case let count = read(reader, &chunk, chunk.count), count > 0 {
                received.append(contentsOf: chunk[..<count])
            }
            break
        }
        if count <= 0 { usleep(1000) }
    }
    if !finished { done.wait() }
    let events = try TraceReader.read(String(decoding: received, as: UTF8.self)).events
    #expect(events.count == 400)
}
