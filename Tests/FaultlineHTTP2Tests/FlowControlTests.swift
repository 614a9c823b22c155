import FaultlineCore
import Testing

@testable import FaultlineHTTP2

/// Manual flow control (RFC 9113 §5.2, §6.9): the peer gets window back only for bytes the
/// caller reports as consumed.
@Suite struct FlowControlTests {
    static let mebibyte = 1 << 20

    static func body(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) ^ seed }
    }

    @Test func aResponseStallsAtTheStreamWindowAndResumesWhenConsumed() throws {
        let pair = try ConnectionPair()  // client: 1 MiB per stream, 4 MiB connection window
        pair.clientConsumes = false
        let id = try pair.client.startRequest(headers: request("GET", "/big"), endStream: true)
        pair.pump()
        let body = Self.body(4 * Self.mebibyte, seed: 7)
        pair.server.sendResponseHead(stream: id, headers: fields([(":status", "200")]), endStream: false)
        pair.server.sendData(stream: id, body[...], endStream: true)
        pair.pump()

        var received = pair.clientEvents.body(id)
        #expect(received.count == Self.mebibyte)  // exactly the advertised stream window
        #expect(pair.server.bufferedOutboundBytes(stream: id) == body.count - Self.mebibyte)
        #expect(!pair.server.wantsWrite)
        // Nothing moves while nobody consumes.
        pair.pump()
        #expect(pair.clientEvents.body(id).count == received.count)

        // Consuming in steps resumes the flow, never past what was granted.
        var consumedSoFar = 0
        while pair.clientEvents.about(id).last != .streamClosed(stream: id, code: .noError) {
            let total = pair.clientEvents.body(id).count
            #expect(total - consumedSoFar <= Self.mebibyte)
            pair.client.consumed(stream: id, bytes: total - consumedSoFar)
            consumedSoFar = total
            let before = total
            pair.pump()
            guard
                pair.clientEvents.body(id).count > before
                    || pair.clientEvents.about(id).last == .streamClosed(stream: id, code: .noError)
            else {
                Issue.record("no progress after consuming \(consumedSoFar) bytes")
                return
            }
        }
        received = pair.clientEvents.body(id)
        #expect(received == body)
        #expect(pair.server.bufferedOutboundBytes(stream: id) == 0)
    }

    @Test func oneStalledStreamDoesNotStopAnother() throws {
        let pair = try ConnectionPair()
        pair.clientConsumes = false
        let stalled = try pair.client.startRequest(headers: request("GET", "/stalled"), endStream: true)
        let flowing = try pair.client.startRequest(headers: request("GET", "/flowing"), endStream: true)
        pair.pump()
        let stalledBody = Self.body(2 * Self.mebibyte, seed: 1)
        let flowingBody = Self.body(2 * Self.mebibyte, seed: 2)
        for (id, body) in [(stalled, stalledBody), (flowing, flowingBody)] {
            pair.server.sendResponseHead(stream: id, headers: fields([(":status", "200")]), endStream: false)
            pair.server.sendData(stream: id, body[...], endStream: true)
        }
        // The client hands on only the flowing stream's data.
        var consumed = 0
        for _ in 0..<100 {
            pair.pump()
            let total = pair.clientEvents.body(flowing).count
            if total == consumed { break }
            pair.client.consumed(stream: flowing, bytes: total - consumed)
            consumed = total
        }
        #expect(pair.clientEvents.body(flowing) == flowingBody)
        #expect(pair.clientEvents.about(flowing).last == .streamClosed(stream: flowing, code: .noError))
        #expect(pair.clientEvents.body(stalled).count == Self.mebibyte)
        #expect(pair.server.bufferedOutboundBytes(stream: stalled) == stalledBody.count - Self.mebibyte)
    }

    @Test func receiveDoesNotPullDataTheCallerDidNotAskFor() throws {
        let pair = try ConnectionPair()
        pair.clientConsumes = false
        let id = try pair.client.startRequest(headers: request("GET", "/"), endStream: true)
        pair.pump()
        pair.server.sendResponseHead(stream: id, headers: fields([(":status", "200")]), endStream: false)
        pair.server.sendData(stream: id, Self.body(Self.mebibyte + 100, seed: 4)[...], endStream: true)
        pair.pump()
        #expect(pair.server.bufferedOutboundBytes(stream: id) == 100)
        // The window opens (WINDOW_UPDATE arrives) but DATA waits for takeOutput.
        pair.client.consumed(stream: id, bytes: Self.mebibyte)
        let update = pair.client.takeOutput()
        #expect(Frame.parse(update).ofType(Frame.windowUpdate).map(\.stream) == [id])
        #expect(pair.server.receive(update).isEmpty)
        #expect(pair.server.bufferedOutboundBytes(stream: id) == 100)
        #expect(pair.server.wantsWrite)
        let data = Frame.parse(pair.server.takeOutput()).ofType(Frame.data)
        #expect(data.map(\.payload.count) == [100])
        #expect(pair.server.bufferedOutboundBytes(stream: id) == 0)
    }

    @Test func aRequestBodyWaitsForTheServer() throws {
        var serverLimits = HTTP2Connection.Limits()
        serverLimits.initialWindowSize = 1000
        let pair = try ConnectionPair(server: serverLimits)
        pair.serverConsumes = false
        pair.pump()  // the client learns the 1000-byte window
        let id = try pair.client.startRequest(headers: request("PUT", "/"), endStream: false)
        pair.client.sendData(stream: id, Self.body(5000, seed: 3)[...], endStream: true)
        pair.pump()
        #expect(pair.serverEvents.body(id).count == 1000)
        #expect(pair.client.bufferedOutboundBytes(stream: id) == 4000)
        pair.server.consumed(stream: id, bytes: 1000)
        pair.pump()
        #expect(pair.serverEvents.body(id).count == 2000)
    }
}
