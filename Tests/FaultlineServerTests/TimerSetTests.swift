import FaultlineCore
import FaultlineFlow
import FaultlineProxy
import Testing

@testable import FaultlinePosix
@testable import FaultlineServer

/// `TimerSet` on a real loop: a key armed over and over (`frequentSlot`) moves its deadline and
/// keeps its loop timer, and still fires exactly when, and as often as, the last arming says.
/// Each test ends on a sentinel loop timer scheduled after everything it checks, so "did not
/// fire" is judged once the loop has passed the instant, not after a sleep.
@Suite struct TimerSetTests {
    /// What fired, in milliseconds after the test's first arming.
    private final class Log: @unchecked Sendable {
        // @unchecked: every access goes through `condition`'s mutex.
        private let condition = ConditionLock<(fired: [(SessionTimer, Int)], done: Bool)>(([], false))

        func record(_ timer: SessionTimer, since start: MonotonicInstant) {
            let elapsed = Int((MonotonicInstant.now().nanoseconds - start.nanoseconds) / 1_000_000)
            condition.withLock { $0.fired.append((timer, elapsed)) }
            condition.broadcast()
        }

        func finish() {
            condition.withLock { $0.done = true }
            condition.broadcast()
        }

        /// What fired by the time the sentinel ran; fails the test after 10 s.
        func firedBySentinel() throws -> [(SessionTimer, Int)] {
            guard let fired = condition.wait(until: { $0.done }, timeoutSeconds: 10, then: { $0.fired }) else {
                throw DeadlineMissed()
            }
            return fired
        }
    }

    private struct DeadlineMissed: Error {}

    /// Loop-confined state handed to the loop's tasks.
    private final class Box: @unchecked Sendable {
        // @unchecked: made on the test thread, then touched only on the loop thread.
        var timers: TimerSet<SessionTimer>?
    }

    /// Runs `arming` on a loop with a fresh timer set, then a sentinel `sentinelMilliseconds`
    /// later; returns what fired before the sentinel.
    private func run(
        sentinelMilliseconds: Int, _ arming: @escaping @Sendable (TimerSet<SessionTimer>) -> Void
    ) throws -> [(SessionTimer, Int)] {
        let group = try EventLoopGroup(loopCount: 1, namePrefix: "timer-set")
        defer { group.shutdown() }
        let loop = group.loops[0]
        let log = Log()
        let box = Box()
        loop.execute {
            let timers = TimerSet<SessionTimer>(loop: loop)
            let start = MonotonicInstant.now()
            timers.onFire = { log.record($0, since: start) }
            box.timers = timers
            arming(timers)
            loop.scheduleTimer(after: .milliseconds(sentinelMilliseconds)) {
                log.finish()
                box.timers?.cancelAll()
            }
        }
        return try log.firedBySentinel()
    }

    @Test func aKeyCancelledAndArmedLaterFiresOnceAtItsLastDeadline() throws {
        let fired = try run(sentinelMilliseconds: 400) { timers in
            timers.arm(.clientIdle, after: .milliseconds(40))
            timers.cancel(.clientIdle)
            timers.arm(.clientIdle, after: .milliseconds(150))
        }
        #expect(fired.count == 1)
        #expect(fired.first?.0 == .clientIdle)
        #expect((fired.first?.1 ?? 0) >= 150, "fired at \(fired.first?.1 ?? -1) ms: the first arming's loop timer")
    }

    @Test func aCancelledKeyNeverFires() throws {
        let fired = try run(sentinelMilliseconds: 200) { timers in
            timers.arm(.clientIdle, after: .milliseconds(30))
            timers.arm(.requestHead, after: .milliseconds(30))
            timers.cancel(.clientIdle)
            timers.cancel(.requestHead)
        }
        #expect(fired.isEmpty)
    }

    @Test func anEarlierDeadlineFiresAtItsTime() throws {
        let fired = try run(sentinelMilliseconds: 1_000) { timers in
            timers.arm(.clientIdle, after: .seconds(5))
            timers.arm(.clientIdle, after: .milliseconds(30))
        }
        #expect(fired.count == 1)
        #expect((fired.first?.1 ?? 0) >= 30)
    }

    @Test func eachFrequentKeyKeepsItsOwnDeadline() throws {
        let fired = try run(sentinelMilliseconds: 400) { timers in
            timers.arm(.requestBody, after: .milliseconds(150))
            timers.arm(.requestHead, after: .milliseconds(20))
            timers.arm(.clientIdle, after: .milliseconds(80))
        }
        #expect(fired.map(\.0) == [.requestHead, .clientIdle, .requestBody])
        #expect(zip(fired.map(\.1), [20, 80, 150]).allSatisfy { $0 >= $1 })
    }

    @Test func otherKeysAreReplacedByArmingAgain() throws {
        let key = SessionTimer.flow(FlowID(1), .responseHead)
        let fired = try run(sentinelMilliseconds: 400) { timers in
            timers.arm(key, after: .milliseconds(30))
            timers.arm(key, after: .milliseconds(120))
            timers.arm(.streamBody(1), after: .milliseconds(20))
            timers.cancel(.streamBody(1))
        }
        #expect(fired.count == 1)
        #expect(fired.first?.0 == key)
        #expect((fired.first?.1 ?? 0) >= 120)
    }

    @Test func flowsTakeTurnsWithTheResponseHeadPlace() throws {
        let (first, second) = (SessionTimer.flow(FlowID(1), .responseHead), SessionTimer.flow(FlowID(2), .responseHead))
        let fired = try run(sentinelMilliseconds: 400) { timers in
            timers.arm(first, after: .milliseconds(30))
            timers.cancel(first)
            timers.arm(second, after: .milliseconds(120))
        }
        #expect(fired.count == 1)
        #expect(fired.first?.0 == second, "the second flow's timer fired as \(String(describing: fired.first?.0))")
        #expect((fired.first?.1 ?? 0) >= 120)
    }

    @Test func aFlowThatFindsThePlaceHeldIsTimedOnItsOwn() throws {
        let (first, second, third) = (
            SessionTimer.flow(FlowID(1), .responseHead), SessionTimer.flow(FlowID(2), .responseHead),
            SessionTimer.flow(FlowID(3), .responseHead)
        )
        let fired = try run(sentinelMilliseconds: 400) { timers in
            timers.arm(first, after: .milliseconds(150))
            timers.arm(second, after: .milliseconds(40))
            timers.arm(third, after: .milliseconds(60))
            timers.cancel(third)
        }
        #expect(fired.map(\.0) == [second, first])
        #expect(zip(fired.map(\.1), [40, 150]).allSatisfy { $0 >= $1 })
    }

    @Test func aFlowArmedOnItsOwnThenInThePlaceFiresOnce() throws {
        let (first, second) = (SessionTimer.flow(FlowID(1), .responseHead), SessionTimer.flow(FlowID(2), .responseHead))
        let fired = try run(sentinelMilliseconds: 400) { timers in
            timers.arm(first, after: .milliseconds(100))
            timers.arm(second, after: .milliseconds(200))  // the place is held: a timer of its own
            timers.cancel(first)
            timers.arm(second, after: .milliseconds(60))  // the place is free now: its own timer goes
        }
        #expect(fired.count == 1, "fired: \(fired)")
        #expect(fired.first?.0 == second)
        #expect((fired.first?.1 ?? 0) >= 60)
    }

    @Test func cancelAllDisarmsEveryKey() throws {
        let fired = try run(sentinelMilliseconds: 200) { timers in
            timers.arm(.clientIdle, after: .milliseconds(20))
            timers.arm(.flow(FlowID(2), .responseHead), after: .milliseconds(20))
            timers.cancelAll()
        }
        #expect(fired.isEmpty)
    }
}
