import FaultlineCore
import Testing

@testable import FaultlinePosix

@Suite struct TimerQueueTests {
    final class Log: @unchecked Sendable {
        // Single-threaded test: no sharing.
        var fired: [Int] = []
    }

    private func drain(_ queue: inout TimerQueue, at now: UInt64) {
        let marker = queue.roundMarker
        while let callback = queue.popExpired(now: MonotonicInstant(nanoseconds: now), before: marker) { callback() }
    }

    @Test func firesInDeadlineOrderThenSchedulingOrder() {
        var queue = TimerQueue(loopSerial: 1)
        let log = Log()
        for (label, deadline) in [(1, 30), (2, 10), (3, 20), (4, 10), (5, 40)] {
            queue.schedule(at: MonotonicInstant(nanoseconds: UInt64(deadline))) { log.fired.append(label) }
        }
        var next = queue.nextDeadline()
        #expect(next == MonotonicInstant(nanoseconds: 10))
        drain(&queue, at: 30)
        #expect(log.fired == [2, 4, 3, 1])
        next = queue.nextDeadline()
        #expect(next == MonotonicInstant(nanoseconds: 40))
        drain(&queue, at: 100)
        #expect(log.fired == [2, 4, 3, 1, 5])
        next = queue.nextDeadline()
        #expect(next == nil)
    }

    @Test func cancelledTimersNeverFire() {
        var queue = TimerQueue(loopSerial: 1)
        let log = Log()
        let first = queue.schedule(at: MonotonicInstant(nanoseconds: 5)) { log.fired.append(1) }
        queue.schedule(at: MonotonicInstant(nanoseconds: 6)) { log.fired.append(2) }
        let cancelled = queue.cancel(first)
        let cancelledAgain = queue.cancel(first)
        #expect(cancelled)
        #expect(!cancelledAgain)
        let next = queue.nextDeadline()
        #expect(next == MonotonicInstant(nanoseconds: 6))
        drain(&queue, at: 10)
        #expect(log.fired == [2])
    }

    @Test func compactionDropsTombstonesAndKeepsOrder() {
        var queue = TimerQueue(loopSerial: 1)
        let log = Log()
        var handles: [TimerHandle] = []
        for index in 0..<1000 {
            // Deadlines in a scrambled order.
            let deadline = UInt64((index * 7919) % 1000)
            handles.append(
                queue.schedule(at: MonotonicInstant(nanoseconds: deadline)) { log.fired.append(Int(deadline)) })
        }
        for (index, handle) in handles.enumerated() where index % 10 != 0 {
            queue.cancel(handle)
        }
        #expect(queue.count == 100)
        #expect(queue.heapCount < 1000)
        drain(&queue, at: 10_000)
        #expect(log.fired.count == 100)
        #expect(log.fired == log.fired.sorted())
    }

    @Test func timersScheduledWhileFiringWaitForTheNextRound() {
        var queue = TimerQueue(loopSerial: 1)
        let log = Log()
        var rescheduled: (() -> Void)?
        rescheduled = { log.fired.append(log.fired.count) }
        queue.schedule(at: MonotonicInstant(nanoseconds: 1)) { log.fired.append(-1) }
        let marker = queue.roundMarker
        var fired = 0
        while let callback = queue.popExpired(now: MonotonicInstant(nanoseconds: 5), before: marker) {
            callback()
            fired += 1
            // A zero-delay re-arm during the round.
            queue.schedule(at: MonotonicInstant(nanoseconds: 1), rescheduled!)
        }
        #expect(fired == 1)
        #expect(queue.count == 1)
    }
}
