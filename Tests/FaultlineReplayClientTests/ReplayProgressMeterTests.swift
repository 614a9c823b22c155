import Testing

@testable import FaultlineReplayClient

@Test func progressIsSaidEverySecondOrEveryTenth() {
    var meter = ReplayProgressMeter(total: 100)
    #expect(meter.update(finished: 5, differences: 0, elapsed: .milliseconds(200)) == nil)
    #expect(
        meter.update(finished: 10, differences: 1, elapsed: .milliseconds(300))
            == "faultline replay client: 10/100 requests (10 %), 1 different, 0.3 s")
    #expect(meter.update(finished: 12, differences: 1, elapsed: .milliseconds(900)) == nil)
    #expect(
        meter.update(finished: 12, differences: 1, elapsed: .milliseconds(1300)) != nil, "a second since the last line")
    #expect(meter.update(finished: 13, differences: 1, elapsed: .milliseconds(1400)) == nil)
    #expect(meter.update(finished: 35, differences: 2, elapsed: .milliseconds(1500)) != nil, "a new tenth")
    #expect(
        meter.update(finished: 100, differences: 2, elapsed: .milliseconds(9000)) == nil,
        "the final line is the caller's")
}

@Test func aQuietReplayStillSaysSomethingEverySecond() {
    var meter = ReplayProgressMeter(total: 3)
    #expect(meter.update(finished: 0, differences: 0, elapsed: .milliseconds(500)) == nil)
    #expect(
        meter.update(finished: 0, differences: 0, elapsed: .milliseconds(1000))
            == "faultline replay client: 0/3 requests (0 %), 0 different, 1.0 s")
    #expect(meter.update(finished: 0, differences: 0, elapsed: .milliseconds(1500)) == nil)
    #expect(meter.update(finished: 0, differences: 0, elapsed: .milliseconds(2000)) != nil)
}
