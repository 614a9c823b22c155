import FaultlineCore
import FaultlineHTTP2
import Testing

@testable import FaultlineProxy

/// The session's open streams: found by ID, visited in stream order whatever order they came
/// and went in.
@Suite struct HTTP2StreamTableTests {
    private let connection = try! HTTP2Connection(role: .server)

    private func stream(_ id: Int32) -> HTTP2Stream {
        HTTP2Stream(
            streamID: id, connection: connection, configuration: ProxyConfiguration(mode: .forward),
            connectionID: ConnectionID(1), assignedFlow: FlowID(UInt64(id)))
    }

    @Test func findsEachStreamByItsIDAndNoOther() {
        var table = HTTP2StreamTable()
        #expect(table.isEmpty)
        #expect(table[1] == nil)
        let streams = [1, 3, 5, 7, 9].map { stream($0) }
        for stream in streams { table[stream.streamID] = stream }
        #expect(!table.isEmpty)
        for stream in streams { #expect(table[stream.streamID] === stream) }
        for missing: Int32 in [0, 2, 4, 6, 8, 10, 11] { #expect(table[missing] == nil) }
    }

    @Test func keepsStreamOrderWhateverTheOrderOfArrivalAndRemoval() {
        var table = HTTP2StreamTable()
        // A client's IDs grow, but the table does not count on it.
        for id: Int32 in [9, 1, 5, 3, 7] { table[id] = stream(id) }
        #expect(table.ids == [1, 3, 5, 7, 9])
        #expect(table.inOrder.map(\.streamID) == [1, 3, 5, 7, 9])
        #expect(table.remove(5)?.streamID == 5)
        #expect(table.remove(5) == nil)
        table[1] = nil
        table[2] = nil  // not there: nothing happens
        #expect(table.ids == [3, 7, 9])
        table[11] = stream(11)
        #expect(table.ids == [3, 7, 9, 11])
        for id in table.ids { _ = table.remove(id) }
        #expect(table.isEmpty)
    }

    @Test func aStreamSetAgainUnderItsIDReplacesTheOldOne() {
        var table = HTTP2StreamTable()
        table[3] = stream(3)
        let replacement = stream(3)
        table[3] = replacement
        #expect(table.ids == [3])
        #expect(table[3] === replacement)
    }

    @Test func theOrderACallerGoesThroughStaysWhileStreamsEnd() {
        var table = HTTP2StreamTable()
        for id: Int32 in [1, 3, 5] { table[id] = stream(id) }
        var visited: [Int32] = []
        for stream in table.inOrder {
            visited.append(stream.streamID)
            _ = table.remove(stream.streamID)
        }
        #expect(visited == [1, 3, 5])
        #expect(table.isEmpty)
    }
}

/// What the session settles after an input: the streams that input reached by their IDs.
@Suite struct HTTP2StreamTableTouchTests {
    private let connection = try! HTTP2Connection(role: .server)

    private func table(_ ids: [Int32]) -> HTTP2StreamTable {
        var table = HTTP2StreamTable()
        for id in ids {
            table[id] = HTTP2Stream(
                streamID: id, connection: connection, configuration: ProxyConfiguration(mode: .forward),
                connectionID: ConnectionID(1), assignedFlow: FlowID(UInt64(id)))
        }
        return table
    }

    private func touched(_ table: inout HTTP2StreamTable) -> [Int32] {
        var visit: [HTTP2Stream] = []
        table.takeTouched(into: &visit)
        return visit.map(\.streamID)
    }

    @Test func handsOutWhatTheSubscriptReachedInStreamOrderEachOnce() {
        var table = table([1, 3, 5, 7])
        #expect(touched(&table) == [1, 3, 5, 7], "a new stream is touched")
        #expect(touched(&table) == [], "then nothing until something is reached again")
        _ = table[7]
        _ = table[3]
        _ = table[7]
        _ = table[3]
        _ = table[9]  // not open: nothing to settle
        #expect(touched(&table) == [3, 7])
    }

    @Test func questionsAndWalksTouchNothing() {
        var table = table([1, 3])
        _ = touched(&table)
        _ = table.peek(1)
        _ = table.inOrder
        _ = table.ids
        #expect(touched(&table) == [])
    }

    @Test func aStreamThatEndedBeforeTheVisitIsLeftOut() {
        var table = table([1, 3, 5])
        _ = table.remove(3)
        table[5] = nil
        #expect(touched(&table) == [1])
    }
}
