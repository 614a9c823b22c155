import FaultlineCore
import Testing

@Test func advancingAndMeasuringAreInverse() {
    let start = MonotonicInstant(nanoseconds: 1_000)
    let later = start.advanced(by: .microseconds(5))
    #expect(later.nanoseconds == 6_000)
    #expect(start.duration(to: later) == .microseconds(5))
    #expect(later.duration(to: start) == .zero)
    #expect(start.advanced(by: .nanoseconds(-5_000)).nanoseconds == 0)
}

@Test func nanosecondsSinceIsTheDurationAsAnIntegerAndNeverNegative() {
    let start = MonotonicInstant(nanoseconds: 1_000)
    let later = start.advanced(by: .microseconds(5))
    #expect(later.nanoseconds(since: start) == 5_000)
    #expect(start.nanoseconds(since: later) == 0)
    #expect(start.nanoseconds(since: start) == 0)
}

@Test func idGeneratorCountsFromOne() {
    let ids = IDGenerator()
    #expect(ids.next() == 1)
    #expect(ids.next() == 2)
}
