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

    /// A cancelled timer's slot serves the next timer: the old handle must neither cancel the new
    /// timer nor make it fire twice (its heap entry is a tombstone that names the slot).
    @Test func aReusedSlotBelongsToItsNewTimerOnly() {
        var queue = TimerQueue(loopSerial: 1)
        let log = Log()
        let old = queue.schedule(at: MonotonicInstant(nanoseconds: 5)) { log.fired.append(1) }
        let cancelled = queue.cancel(old)
        #expect(cancelled)
        let new = queue.schedule(at: MonotonicInstant(nanoseconds: 7)) { log.fired.append(2) }
        #expect(new.slot == old.slot)
        let cancelledAgain = queue.cancel(old)
        #expect(!cancelledAgain)
        #expect(queue.count == 1)
        let next = queue.nextDeadline()
        #expect(next == MonotonicInstant(nanoseconds: 7))
        drain(&queue, at: 10)
        #expect(log.fired == [2])
        let cancelledAfterFiring = queue.cancel(new)
        #expect(!cancelledAfterFiring)
        #expect(queue.count == 0)
    }

    /// Arming and cancelling a timer per request, as a keep-alive connection does, keeps the
    /// queue's storage at the number of timers live at once.
    @Test func armingAndCancellingForeverKeepsTheStorageSmall() {
        var queue = TimerQueue(loopSerial: 1)
        let keeper = queue.schedule(at: MonotonicInstant(nanoseconds: 1_000_000)) {}
        for round in 0..<10_000 {
            let handle = queue.schedule(at: MonotonicInstant(nanoseconds: UInt64(500 + round))) {}
            #expect(handle.slot <= 1)
            queue.cancel(handle)
        }
        #expect(queue.count == 1)
        #expect(queue.heapCount <= 130)
        let keeperCancelled = queue.cancel(keeper)
        #expect(keeperCancelled)
    }
}
