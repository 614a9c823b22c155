import FaultlineCore
import Testing

@testable import FaultlineExplore

/// A timer that fires before a wait's end decides nothing and asks for the end again: the driver
/// relies on it to wake a long wait early and sleep the rest in one short, punctual sleep
/// (ExploreDriver.wakeInstant). The settle window's twin is in nothingGoesBeforeTheSettleWindow.
struct ExploreSchedulerEarlyTimerTests {
    @Test func aWaitWokenEarlyIsArmedAgainForItsEnd() {
        let start = MonotonicInstant(nanoseconds: 1_000_000_000)
        let step = ExploreStep(id: 1, flow: 1, connection: 1, phase: .response, request: "GET /v1/messages")
        var scheduler = ExploreScheduler(
            strategy: ChoiceList([.wait]), settings: .init(settle: .milliseconds(25), maxWait: .seconds(1)), now: start)
        _ = scheduler.stepArrived(step, now: start)
        let decided = start.advanced(by: .milliseconds(25))
        let end = decided.advanced(by: .seconds(1))
        #expect(scheduler.timerFired(now: decided).contains(.armTimer(end)))
        #expect(scheduler.timerFired(now: end.advanced(by: .milliseconds(-50))) == [.armTimer(end)])
        #expect(scheduler.decisions.count == 1, "woken early, nothing was decided")
        #expect(scheduler.timerFired(now: end).contains(.release(step)))
    }
}
