import FaultlineCore
import Testing

@testable import FaultlineProxy

/// `FlowStreamIndex` answers as the dictionary it replaced would, whatever order flows come and go in.
@Suite struct FlowStreamIndexTests {
    @Test func answersAsADictionaryWouldUnderRandomChanges() {
        var generator = SeededGenerator(seed: 23)
        var index = FlowStreamIndex()
        var expected: [FlowID: Int32] = [:]
        for step in 0..<4_000 {
            // Mostly ascending flows, as a session makes them, with old ones revisited.
            let flow = FlowID(UInt64(Int.random(in: 0...(step / 8 + 4), using: &generator)))
            switch Int.random(in: 0..<4, using: &generator) {
            case 0, 1:
                let stream = Int32.random(in: 1...999, using: &generator)
                index[flow] = stream
                expected[flow] = stream
            case 2:
                index[flow] = nil
                expected[flow] = nil
            default:
                #expect(index[flow] == expected[flow], "step \(step), \(flow)")
            }
        }
        for raw in 0...UInt64(4_000 / 8 + 4) {
            #expect(index[FlowID(raw)] == expected[FlowID(raw)], "f\(raw) at the end")
        }
        #expect(index.isEmpty == expected.isEmpty)
    }

    @Test func aFlowIsFoundOnlyUnderItsOwnID() {
        var index = FlowStreamIndex()
        index[FlowID(3)] = 1
        index[FlowID(7)] = 3
        index[FlowID(5)] = 5
        #expect(index[FlowID(3)] == 1 && index[FlowID(5)] == 5 && index[FlowID(7)] == 3)
        #expect(index[FlowID(4)] == nil && index[FlowID(8)] == nil && index[FlowID(0)] == nil)
        index[FlowID(5)] = nil
        #expect(index[FlowID(5)] == nil && index[FlowID(7)] == 3)
        index[FlowID(7)] = 9
        #expect(index[FlowID(7)] == 9)
    }
}
