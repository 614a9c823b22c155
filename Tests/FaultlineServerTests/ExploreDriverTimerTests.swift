import FaultlineCore
import Testing

@testable import FaultlineServer

/// The driver's timer wakes a long wait early, so the last sleep is short enough for the kernel to
/// end on time (a one-second `epoll_wait` may end a millisecond late: see `punctualSleep`).
struct ExploreDriverTimerTests {
    let now = MonotonicInstant(nanoseconds: 7_000_000_000)

    @Test func aTimerFarAwayWakesThePunctualSleepBeforeIt() {
        let end = now.advanced(by: .seconds(1))
        #expect(ExploreDriver.wakeInstant(for: end, now: now) == now.advanced(by: .milliseconds(950)))
        // Woken there, the scheduler asks for the same instant again: now the sleep is short.
        let woken = now.advanced(by: .milliseconds(950))
        #expect(ExploreDriver.wakeInstant(for: end, now: woken) == end)
    }

    @Test func aSettleWindowIsSleptInOneGo() {
        let quiet = now.advanced(by: .milliseconds(25))
        #expect(ExploreDriver.wakeInstant(for: quiet, now: now) == quiet)
        let edge = now.advanced(by: ExploreDriver.punctualSleep)
        #expect(ExploreDriver.wakeInstant(for: edge, now: now) == edge)
    }

    @Test func anInstantAlreadyPastIsDueAtOnce() {
        let past = MonotonicInstant(nanoseconds: now.nanoseconds - 3_000_000)
        #expect(ExploreDriver.wakeInstant(for: past, now: now) == past)
    }
}
