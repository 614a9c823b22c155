import FaultlineCore
import Testing

@testable import FaultlineExplore

/// The scheduler driven directly, with a clock the test moves: decisions only when something is
/// pending and the system has been quiet for the settle window, waits that end at an arrival or
/// at the maximum, and divergences said.
@Suite struct ExploreSchedulerTests {
    static let settings = ExploreScheduler.Settings(settle: .milliseconds(25), maxWait: .milliseconds(1000))

    static func at(_ milliseconds: UInt64) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: milliseconds * 1_000_000)
    }

    static func step(_ id: UInt64, _ phase: ExploreStep.Phase = .response, _ request: String = "GET /a") -> ExploreStep
    {
        ExploreStep(id: id, flow: id, connection: 1, phase: phase, request: request)
    }

    static func released(_ actions: [ExploreScheduler.Action]) -> [UInt64] {
        actions.compactMap { if case .release(let step) = $0 { step.id } else { nil } }
    }

    @Test func nothingGoesBeforeTheSettleWindow() {
        var scheduler = ExploreScheduler(strategy: ChoiceList([]), settings: Self.settings, now: Self.at(0))
        #expect(scheduler.stepArrived(Self.step(1), now: Self.at(0)) == [.armTimer(Self.at(25))])
        // Activity at 10 ms moves the decision to 35 ms; a timer at 25 ms only re-arms.
        #expect(scheduler.activity(now: Self.at(10)) == [.armTimer(Self.at(35))])
        #expect(scheduler.timerFired(now: Self.at(25)) == [.armTimer(Self.at(35))])
        let actions = scheduler.timerFired(now: Self.at(35))
        #expect(Self.released(actions) == [1])
        #expect(scheduler.order == ["response GET /a"])
        #expect(scheduler.choices == [.step(0)])
    }

    @Test func firstComeFirstServedLetsTheOldestGoOneAtATime() {
        var scheduler = ExploreScheduler(strategy: ChoiceList([]), settings: Self.settings, now: Self.at(0))
        _ = scheduler.stepArrived(Self.step(1), now: Self.at(0))
        _ = scheduler.stepArrived(Self.step(2), now: Self.at(1))
        let first = scheduler.timerFired(now: Self.at(26))
        #expect(Self.released(first) == [1])
        #expect(first.contains(.armTimer(Self.at(51))), "the next decision needs quiet again")
        #expect(Self.released(scheduler.timerFired(now: Self.at(40))) == [], "not quiet yet")
        #expect(Self.released(scheduler.timerFired(now: Self.at(51))) == [2])
        #expect(scheduler.timerFired(now: Self.at(80)) == [], "nothing pending: no decision, no timer")
        #expect(scheduler.decisions.map(\.alternatives) == [3, 2], "two steps and waiting, then one and waiting")
    }

    @Test func aChoiceListPicksByIndexAmongThePendingOldestFirst() {
        var scheduler = ExploreScheduler(
            strategy: ChoiceList([.step(2), .step(0)]), settings: Self.settings, now: Self.at(0))
        for id: UInt64 in 1...3 { _ = scheduler.stepArrived(Self.step(id, .request, "GET /\(id)"), now: Self.at(0)) }
        #expect(Self.released(scheduler.timerFired(now: Self.at(25))) == [3])
        #expect(Self.released(scheduler.timerFired(now: Self.at(50))) == [1])
        let decision = scheduler.decisions[0]
        #expect(decision.pending == ["request GET /1", "request GET /2", "request GET /3"])
        #expect(decision.choice == "2" && decision.step == "request GET /3" && decision.flow == 3)
    }

    /// A wait keeps everything pending until the next arrival, which then can go first.
    @Test func aWaitLetsALaterArrivalOvertake() {
        var scheduler = ExploreScheduler(
            strategy: ChoiceList([.wait, .step(1)]), settings: Self.settings, now: Self.at(0))
        _ = scheduler.stepArrived(Self.step(1, .response, "GET /messages"), now: Self.at(0))
        #expect(scheduler.timerFired(now: Self.at(25)).contains(.armTimer(Self.at(1025))))
        #expect(Self.released(scheduler.timerFired(now: Self.at(300))) == [], "still waiting")
        #expect(scheduler.activity(now: Self.at(400)) == [], "activity does not end a wait")
        _ = scheduler.stepArrived(Self.step(2, .request, "POST /logout"), now: Self.at(500))
        #expect(Self.released(scheduler.timerFired(now: Self.at(525))) == [2])
        #expect(scheduler.order == ["request POST /logout"])
        #expect(scheduler.choices == [.wait, .step(1)])
    }

    /// A wait that sees no arrival ends at the maximum, and waiting is not offered again until
    /// something arrives.
    @Test func aWaitWithoutArrivalEndsAndIsNotOfferedAgain() {
        var scheduler = ExploreScheduler(strategy: ChoiceList([.wait]), settings: Self.settings, now: Self.at(0))
        _ = scheduler.stepArrived(Self.step(1), now: Self.at(0))
        _ = scheduler.timerFired(now: Self.at(25))
        let after = scheduler.timerFired(now: Self.at(1025))
        #expect(Self.released(after) == [1])
        #expect(scheduler.decisions.map(\.alternatives) == [2, 1])
        #expect(scheduler.divergences.isEmpty)
    }

    @Test func aReplayedChoiceThatCannotBeTakenDivergesAndGoesFirstComeFirstServed() {
        var scheduler = ExploreScheduler(strategy: ChoiceList([.step(3)]), settings: Self.settings, now: Self.at(0))
        _ = scheduler.stepArrived(Self.step(1), now: Self.at(0))
        #expect(Self.released(scheduler.timerFired(now: Self.at(25))) == [1])
        #expect(scheduler.choices == [.step(0)])
        #expect(
            scheduler.divergences == [
                "decision 0: the schedule chose step 3 of 1 pending; went first come, first served"
            ])
    }

    @Test func aStepThatLeavesByItsTimeoutDivergesTheRun() {
        var scheduler = ExploreScheduler(strategy: ChoiceList([]), settings: Self.settings, now: Self.at(0))
        _ = scheduler.stepArrived(Self.step(7), now: Self.at(0))
        _ = scheduler.stepLeft(id: 7, reason: "went by its 5 s step timeout", now: Self.at(5000))
        #expect(scheduler.pendingSteps.isEmpty)
        #expect(scheduler.divergences == ["response GET /a (flow 7) went by its 5 s step timeout"])
        // A flow that simply ended (its client left) is no divergence.
        _ = scheduler.stepArrived(Self.step(8), now: Self.at(5001))
        _ = scheduler.stepLeft(id: 8, reason: nil, now: Self.at(5002))
        #expect(scheduler.divergences.count == 1)
    }

    /// The same seed gives the same choices; another seed, eventually, others.
    @Test func seededStrategiesAreDeterministic() {
        let pending = (1...4).map { Self.step(UInt64($0)) }
        func choices(_ make: () -> any ExploreStrategy) -> [ExploreChoice] {
            var strategy = make()
            return (0..<20).map { strategy.choose(pending, canWait: true, decision: $0) }
        }
        for kind in [StrategyKind.random, .pct(depth: 3)] {
            #expect(choices { kind.make(seed: 5, horizon: 20) } == choices { kind.make(seed: 5, horizon: 20) })
            let seeds = (1...20).map { seed in choices { kind.make(seed: UInt64(seed), horizon: 20) } }
            #expect(Set(seeds.map(\.description)).count > 1, "\(kind): every seed chose alike")
        }
    }

    /// PCT without change points (depth 1) always lets the same highest-priority step go while it
    /// is pending; its change points make the step about to go lower than every other.
    @Test func pctKeepsItsPrioritiesAndChangesThemAtItsPoints() {
        let pending = (1...3).map { Self.step(UInt64($0)) }
        var flat = PCTStrategy(seed: 9, depth: 1, horizon: 10)
        let first = flat.choose(pending, canWait: false, decision: 0)
        #expect((1..<10).allSatisfy { flat.choose(pending, canWait: false, decision: $0) == first })
        var deep = PCTStrategy(seed: 9, depth: 3, horizon: 4)
        let picks = (0..<4).map { deep.choose(pending, canWait: false, decision: $0) }
        #expect(Set(picks).count > 1, "two change points among four decisions move the top step: \(picks)")
    }
}

extension ExploreSchedulerTests {
    /// After two waits that saw nothing arrive, the run is not offered waiting again.
    @Test func fruitlessWaitsStopBeingOffered() {
        var scheduler = ExploreScheduler(
            strategy: ChoiceList([.wait, .step(0), .wait, .step(0)]), settings: Self.settings, now: Self.at(0))
        var now: UInt64 = 0
        func arrive(_ id: UInt64) { _ = scheduler.stepArrived(Self.step(id), now: Self.at(now)) }
        func tick(_ after: UInt64) -> [ExploreScheduler.Action] {
            now += after
            return scheduler.timerFired(now: Self.at(now))
        }
        arrive(1)
        _ = tick(25)  // wait
        _ = tick(1000)  // fruitless: step 1 goes
        arrive(2)
        _ = tick(25)  // wait again: offered, since something arrived
        _ = tick(1000)  // second fruitless wait
        arrive(3)
        _ = tick(25)
        #expect(scheduler.decisions.map(\.alternatives) == [2, 1, 2, 1, 1], "no wait offered after two fruitless ones")
    }
}

extension ExploreSchedulerTests {
    /// Steps that arrived between the same two decisions are ordered by label, whichever thread
    /// sent its request first; a step that arrived after a decision comes after those before it.
    @Test func pendingStepsAreInScheduleOrder() {
        var scheduler = ExploreScheduler(strategy: ChoiceList([]), settings: Self.settings, now: Self.at(0))
        _ = scheduler.stepArrived(Self.step(1, .request, "GET /v1/messages"), now: Self.at(0))
        _ = scheduler.stepArrived(Self.step(2, .request, "GET /v1/avatar"), now: Self.at(1))
        _ = scheduler.stepArrived(Self.step(3, .request, "GET /v1/count"), now: Self.at(2))
        #expect(scheduler.pendingSteps.map(\.id) == [2, 3, 1])
        #expect(Self.released(scheduler.timerFired(now: Self.at(27))) == [2])
        _ = scheduler.stepArrived(Self.step(4, .request, "GET /a-first-by-name"), now: Self.at(30))
        #expect(scheduler.pendingSteps.map(\.id) == [3, 1, 4], "arrived after decision 0: after the earlier ones")
    }
}
