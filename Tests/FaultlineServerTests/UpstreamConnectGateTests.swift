import FaultlineCore
import Testing

@testable import FaultlineServer

/// The admission of new upstream connects (`UpstreamConnectGate`), fed by hand: origins are
/// strings, tickets numbers, the time instants a test picks.
@Suite struct UpstreamConnectGateTests {
    typealias Gate = UpstreamConnectGate<String>

    static let t0 = MonotonicInstant(nanoseconds: 1_000_000_000)
    static func at(_ milliseconds: Int64) -> MonotonicInstant { t0.advanced(by: .milliseconds(milliseconds)) }

    /// The gate behind a reference, so that `#expect` (which cannot mutate) can feed it.
    final class Fed {
        var gate: Gate
        init(_ gate: Gate) { self.gate = gate }
        func request(_ ticket: Gate.Ticket, to origin: String, at now: MonotonicInstant) -> [Gate.Action] {
            gate.request(ticket, to: origin, at: now)
        }
        func cancel(_ ticket: Gate.Ticket) -> Bool { gate.cancel(ticket) }
        func finished(_ ticket: Gate.Ticket) -> [Gate.Action] { gate.finished(ticket) }
        func expire(at now: MonotonicInstant, after wait: Duration) -> [Gate.Action] {
            gate.expire(at: now, after: wait)
        }
        var inFlightCount: Int { gate.inFlightCount }
        var waitingCount: Int { gate.waitingCount }
        func inFlightCount(to origin: String) -> Int { gate.inFlightCount(to: origin) }
        var oldestWaitingSince: MonotonicInstant? { gate.oldestWaitingSince }
    }

    private func gate(perOrigin: Int = 2, perLoop: Int = 3, queue: Int = 4) -> Fed {
        Fed(Gate(limits: UpstreamConnectLimits(perOrigin: perOrigin, perLoop: perLoop, queue: queue)))
    }

    @Test func connectsStartUpToThePerOriginCapAndTheRestWait() {
        let gate = gate()
        #expect(gate.request(1, to: "a", at: Self.t0) == [.start(1)])
        #expect(gate.request(2, to: "a", at: Self.t0) == [.start(2)])
        #expect(gate.request(3, to: "a", at: Self.t0) == [])
        #expect(gate.request(4, to: "a", at: Self.t0) == [])
        #expect((gate.inFlightCount(to: "a"), gate.waitingCount) == (2, 2))
        // The places go in arrival order, one per connect that ends.
        #expect(gate.finished(2) == [.start(3)])
        #expect(gate.finished(1) == [.start(4)])
        #expect(gate.finished(3) == [])
        #expect(gate.finished(4) == [])
        #expect((gate.inFlightCount, gate.waitingCount) == (0, 0))
    }

    /// Another origin is not held up by a full one, until the loop's cap is reached.
    @Test func theLoopCapCountsEveryOrigin() {
        let gate = gate()
        #expect(gate.request(1, to: "a", at: Self.t0) == [.start(1)])
        #expect(gate.request(2, to: "a", at: Self.t0) == [.start(2)])
        #expect(gate.request(3, to: "a", at: Self.t0) == [])
        #expect(gate.request(4, to: "b", at: Self.t0) == [.start(4)])
        #expect(gate.request(5, to: "c", at: Self.t0) == [])  // the loop has 3 in flight
        #expect(gate.inFlightCount == 3)
        // "a" is still at its cap: the place goes to "c", which waited behind "a"'s connect.
        #expect(gate.finished(4) == [.start(5)])
        #expect(gate.finished(1) == [.start(3)])
    }

    /// The queue is bounded: past it a request is refused at once and changes nothing.
    @Test func aRequestPastAFullQueueIsRefused() {
        let gate = gate(perOrigin: 1, perLoop: 1, queue: 2)
        #expect(gate.request(1, to: "a", at: Self.t0) == [.start(1)])
        #expect(gate.request(2, to: "a", at: Self.t0) == [])
        #expect(gate.request(3, to: "b", at: Self.t0) == [])
        #expect(gate.request(4, to: "b", at: Self.t0) == [.refuse(4)])
        #expect(gate.waitingCount == 2)
        #expect(gate.finished(4) == [])  // a refused ticket holds no place
        #expect(gate.finished(1) == [.start(2)])
    }

    /// A connect called off while waiting never starts and frees its queue slot; one called off
    /// in flight keeps its place until its socket is done.
    @Test func aCancelledWaitingConnectNeverStarts() {
        let gate = gate(perOrigin: 1, perLoop: 1, queue: 2)
        #expect(gate.request(1, to: "a", at: Self.t0) == [.start(1)])
        #expect(gate.request(2, to: "a", at: Self.t0) == [])
        #expect(gate.request(3, to: "a", at: Self.t0) == [])
        #expect(gate.cancel(2))
        #expect(gate.request(4, to: "a", at: Self.t0) == [])  // the slot 2 had is free again
        #expect(!gate.cancel(1))  // in flight
        #expect(gate.request(5, to: "b", at: Self.t0) == [.refuse(5)])
        #expect(gate.finished(1) == [.start(3)])
        #expect(gate.finished(3) == [.start(4)])
        #expect(!gate.cancel(99))
    }

    /// A rapid reset's worth of streams: every one asks and is called off before a place frees.
    /// Only the first `perOrigin` ever start, however many ask.
    @Test func manyCalledOffRequestsStartOnlyTheCap() {
        let gate = gate(perOrigin: 4, perLoop: 8, queue: 16)
        var started = 0
        for ticket in UInt64(1)...10_000 {
            for action in gate.request(ticket, to: "a", at: Self.t0) {
                if case .start = action { started += 1 }
            }
            if ticket > 4 { #expect(gate.cancel(ticket)) }
        }
        #expect(started == 4)
        #expect((gate.inFlightCount, gate.waitingCount) == (4, 0))
        for ticket in UInt64(1)...4 { #expect(gate.finished(ticket) == []) }
    }

    @Test func waitingPastTheDeadlineExpiresInArrivalOrder() {
        let gate = gate(perOrigin: 1, perLoop: 1, queue: 4)
        #expect(gate.request(1, to: "a", at: Self.at(0)) == [.start(1)])
        #expect(gate.request(2, to: "a", at: Self.at(0)) == [])
        #expect(gate.request(3, to: "a", at: Self.at(5)) == [])
        #expect(gate.oldestWaitingSince == Self.at(0))
        #expect(gate.expire(at: Self.at(9), after: .milliseconds(10)) == [])
        #expect(gate.expire(at: Self.at(10), after: .milliseconds(10)) == [.expire(2)])
        #expect(gate.oldestWaitingSince == Self.at(5))
        #expect(gate.expire(at: Self.at(20), after: .milliseconds(10)) == [.expire(3)])
        #expect(gate.oldestWaitingSince == nil)
        #expect(gate.finished(1) == [])
    }
}
