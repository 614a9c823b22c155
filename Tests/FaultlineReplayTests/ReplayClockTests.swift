import Testing

@testable import FaultlineReplay

/// 2026-12-02T00:00:00Z, when `CaptureBuilder`'s requests were recorded.
let recordedInstant: Int64 = 1_796_169_600
let second: Int64 = 1_000_000_000

@Test func clockModesParseFromTheCommandLine() {
    #expect(ReplayClock.Mode(parsing: "shift") == .shift)
    #expect(ReplayClock.Mode(parsing: "recorded") == .recorded)
    #expect(ReplayClock.Mode(parsing: "frozen=2026-12-02T00:00:00Z") == .frozen(at: recordedInstant))
    #expect(ReplayClock.Mode(parsing: "frozen=2026-12-02T01:00:00+01:00") == .frozen(at: recordedInstant))
    #expect(ReplayClock.Mode(parsing: "frozen=1796169600") == .frozen(at: recordedInstant))
    #expect(ReplayClock.Mode.frozen(at: recordedInstant).description == "frozen=2026-12-02T00:00:00Z")
    for bad in ["", "Shift", "now", "frozen", "frozen=", "frozen=yesterday", "frozen=-5", "frozen=2026-12-02"] {
        #expect(ReplayClock.Mode(parsing: bad) == nil, "\(bad)")
    }
    #expect(ReplayClock.seconds(parsing: "1796169600") == recordedInstant)
    #expect(ReplayClock.seconds(parsing: "2026-12-02T00:00:00.999Z") == recordedInstant)
    #expect(ReplayClock.seconds(parsing: "99999999999999999999999") == nil)
}

@Test func shiftMovesByTheDistanceFromTheRecordedRequestToThisOne() {
    let clock = ReplayClock()
    let recorded = recordedInstant * second
    #expect(clock.offset(recorded: recorded, now: recorded + 86_400 * second) == 86_400)
    // Whole seconds, rounded down; a clock behind the recording moves times back.
    #expect(clock.offset(recorded: recorded, now: recorded + 2 * second - 1) == 1)
    #expect(clock.offset(recorded: recorded, now: recorded - second / 2) == -1)
    // A recording without a readable time keeps its times.
    #expect(clock.offset(recorded: nil, now: recorded) == 0)
}

@Test func recordedKeepsAndFrozenAnswersAsAtOneInstant() {
    let recorded = recordedInstant * second + second / 3
    let now = recorded + 7 * 86_400 * second
    #expect(ReplayClock(mode: .recorded).offset(recorded: recorded, now: now) == 0)
    let frozen = ReplayClock(mode: .frozen(at: recordedInstant + 3600))
    #expect(frozen.offset(recorded: recorded, now: now) == 3600)
    #expect(frozen.offset(recorded: recorded, now: now + 99 * second) == 3600)
}

@Test func nowStartsTheRunsClockAtAGivenInstantAndRunsOn() {
    let wall = 5 * second
    #expect(ReplayClock().now(wall: wall, elapsed: 123) == wall)
    let later = ReplayClock(startsAt: recordedInstant + 86_400)
    #expect(later.now(wall: wall, elapsed: 0) == (recordedInstant + 86_400) * second)
    #expect(later.now(wall: wall, elapsed: 3 * second) == (recordedInstant + 86_403) * second)
}
