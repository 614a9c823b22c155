import FaultlineCore
import Testing

@testable import FaultlineServer

/// `FlowTable`: an HTTP/1 connection's one flow at a time stays inline; more flows at once spill
/// into a dictionary, which gives its storage back once empty.
@Suite struct FlowTableTests {
    @Test func oneFlowAtATimeNeverAllocates() {
        var table = FlowTable<String>()
        for id in 1...5 {
            let flow = FlowID(UInt64(id))
            table[flow] = "link \(id)"
            #expect(table[flow] == "link \(id)" && table.count == 1)
            let removed = table.removeValue(forKey: flow)
            #expect(removed == "link \(id)" && table.isEmpty)
            let released = table.releaseUnusedStorage()
            #expect(!released, "nothing spilled, so there is nothing to give back")
        }
    }

    @Test func flowsAtOnceSpillAndAreAllFound() {
        var table = FlowTable<Int>()
        for id in 1...40 { table[FlowID(UInt64(id))] = id }
        table[FlowID(7)] = 700  // replaced, not added
        #expect(table.count == 40 && table.values.count == 40)
        for id in 1...40 { #expect(table[FlowID(UInt64(id))] == (id == 7 ? 700 : id)) }
        #expect(table[FlowID(41)] == nil)
        #expect(Set(table.flows) == Set((1...40).map { FlowID(UInt64($0)) }))
        let sum = table.values.reduce(0, +)
        #expect(sum == 820 - 7 + 700)

        var released = table.releaseUnusedStorage()
        #expect(!released, "not empty yet")
        table[FlowID(1)] = nil
        for id in 2...40 {
            let removed = table.removeValue(forKey: FlowID(UInt64(id)))
            #expect(removed != nil)
        }
        #expect(table.isEmpty && table.values.count == 0)
        released = table.releaseUnusedStorage()
        #expect(released, "the spilled flows' storage goes back")
        released = table.releaseUnusedStorage()
        #expect(!released)
    }

    @Test func theInlinePlaceIsReusedWhileOthersAreIn() {
        var table = FlowTable<String>()
        table[FlowID(1)] = "a"
        table[FlowID(2)] = "b"
        table[FlowID(1)] = nil
        table[FlowID(3)] = "c"  // inline again
        table[FlowID(2)] = "b2"  // stays where it is: one entry per flow
        #expect(table.count == 2 && table[FlowID(2)] == "b2" && table[FlowID(3)] == "c")
        #expect(table.values.sorted() == ["b2", "c"])
    }
}
