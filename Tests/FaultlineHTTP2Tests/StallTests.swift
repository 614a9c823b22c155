import FaultlineCore
import Testing

@testable import FaultlineHTTP2

/// What a caller reads to tell a stalling peer from a slow one (HTTP2Connection+Stalls.swift):
/// output waiting for the peer's window, DATA leaving, and a header block left open.
@Suite struct StallTests {
    // MARK: Output waiting for the window

    /// A server whose hand-built client sent `settings` and a GET on stream 1 (no WINDOW_UPDATE
    /// unless the test sends one), with a response head queued and taken.
    static func respondingServer(settings: [(UInt16, UInt32)] = []) throws -> HTTP2Connection {
        let server = try HTTP2Connection(role: .server)
        let request = Frame.headers(stream: 1, MalformedInputTests.getBlock, endStream: true)
        _ = server.receive(Frame.clientMagic + Frame.settings(settings).bytes + request.bytes)
        _ = server.takeOutput()
        server.sendResponseHead(stream: 1, headers: fields([(":status", "200")]), endStream: false)
        _ = server.takeOutput()
        return server
    }

    static func windowUpdate(stream: Int32, _ increment: UInt32) -> [UInt8] {
        Frame(type: Frame.windowUpdate, flags: 0, stream: stream, payload: Frame.be32(increment)).bytes
    }

    /// A response whose stream window is 0 (the client's SETTINGS_INITIAL_WINDOW_SIZE) waits
    /// for it from its first byte; a WINDOW_UPDATE lets it go on.
    @Test func aResponseWaitsForAStreamWindowOfZero() throws {
        let server = try Self.respondingServer(settings: [(0x4, 0)])
        #expect(!server.isWaitingForWindow(stream: 1), "nothing queued: the head is not flow-controlled")
        server.sendData(stream: 1, Array(repeating: 7, count: 1000)[...], endStream: true)
        #expect(server.isWaitingForWindow(stream: 1), "queued, and the window is 0: no need to try sending")
        _ = server.takeOutput()
        #expect(server.isWaitingForWindow(stream: 1))
        #expect(server.dataOctetsSent == 0, "no DATA left")
        #expect(server.bufferedOutboundBytes(stream: 1) == 1000)

        // The stream's window opens by 400: 400 octets go, the rest waits again.
        _ = server.receive(Self.windowUpdate(stream: 1, 400))
        let frames = Frame.parse(server.takeOutput())
        #expect(frames.filter { $0.type == Frame.data }.map(\.payload.count) == [400])
        #expect(server.dataOctetsSent == 400)
        #expect(server.isWaitingForWindow(stream: 1))
        _ = server.receive(Self.windowUpdate(stream: 1, 1000))
        _ = server.takeOutput()
        #expect(!server.isWaitingForWindow(stream: 1), "the stream is done")
        #expect(server.dataOctetsSent == 1000)
    }

    /// The default window (65,535): the first 65,535 octets go, the rest waits.
    @Test func aResponseWaitsOnceTheDefaultWindowIsUsed() throws {
        let server = try Self.respondingServer()
        server.sendData(stream: 1, Array(repeating: 1, count: 65_535)[...], endStream: false)
        _ = server.takeOutput()
        #expect(server.dataOctetsSent == 65_535)
        #expect(!server.isWaitingForWindow(stream: 1), "everything queued went out")
        server.sendData(stream: 1, [1][...], endStream: false)
        _ = server.takeOutput()
        #expect(server.isWaitingForWindow(stream: 1))
        #expect(!server.isWaitingForWindow(stream: 3), "a stream that is not open")
        // A window that opens on the stream only is not enough: the connection's is spent too.
        _ = server.receive(Self.windowUpdate(stream: 1, 10))
        _ = server.takeOutput()
        #expect(server.isWaitingForWindow(stream: 1))
        _ = server.receive(Self.windowUpdate(stream: 0, 10))
        _ = server.takeOutput()
        #expect(!server.isWaitingForWindow(stream: 1))
        #expect(server.dataOctetsSent == 65_536)
    }

    /// The connection window counts too: a stream with window left waits when the
    /// connection's is spent by another stream.
    @Test func theConnectionWindowAloneMakesAStreamWait() throws {
        var clientLimits = HTTP2Connection.Limits()
        clientLimits.initialWindowSize = 1 << 20
        clientLimits.connectionWindowSize = 65_535
        let pair = try ConnectionPair(client: clientLimits)
        pair.clientConsumes = false
        let first = try pair.client.startRequest(headers: request("GET", "/first"), endStream: true)
        let second = try pair.client.startRequest(headers: request("GET", "/second"), endStream: true)
        pair.pump()
        for id in [first, second] {
            pair.server.sendResponseHead(stream: id, headers: fields([(":status", "200")]), endStream: false)
        }
        pair.server.sendData(stream: first, Array(repeating: 1, count: 65_535)[...], endStream: false)
        pair.pump()
        pair.server.sendData(stream: second, [2, 2][...], endStream: true)
        pair.pump()
        #expect(pair.server.isWaitingForWindow(stream: second))
        #expect(!pair.server.isWaitingForWindow(stream: first))
    }

    // MARK: Header blocks left open

    @Test func aHeadersWithoutEndHeadersOpensABlockUntilItsLastContinuation() throws {
        let server = try HTTP2Connection(role: .server)
        #expect(server.unfinishedHeaderBlock == nil)
        let block = HPACK.literals(MalformedInputTests.getBlock)
        _ = server.receive(
            Frame.clientPreface
                + Frame.headers(stream: 1, block: Array(block.prefix(4)), endStream: true, endHeaders: false).bytes)
        #expect(server.unfinishedHeaderBlock == 1)
        // A CONTINUATION without END_HEADERS keeps the same block open (its clock does not restart).
        _ = server.receive(Frame.continuation(stream: 1, block: Array(block[4..<8]), endHeaders: false).bytes)
        #expect(server.unfinishedHeaderBlock == 1)
        let events = server.receive(Frame.continuation(stream: 1, block: Array(block[8...]), endHeaders: true).bytes)
        #expect(server.unfinishedHeaderBlock == nil)
        #expect(events.contains { if case .headers(1, _, true) = $0 { true } else { false } })

        // The next block is another one.
        let next = HPACK.literals(MalformedInputTests.getBlock)
        _ = server.receive(
            Frame.headers(stream: 3, block: Array(next.prefix(3)), endStream: true, endHeaders: false).bytes)
        #expect(server.unfinishedHeaderBlock == 2)
    }

    @Test func aHeadersWithEndHeadersOpensNoBlock() throws {
        let server = try HTTP2Connection(role: .server)
        let block = HPACK.literals(MalformedInputTests.getBlock)
        _ = server.receive(Frame.clientPreface + Frame.headers(stream: 1, block: block, endStream: true).bytes)
        #expect(server.unfinishedHeaderBlock == nil)
    }

    @Test func aFailedConnectionHasNoOpenBlock() throws {
        let server = try HTTP2Connection(role: .server)
        let block = HPACK.literals(MalformedInputTests.getBlock)
        _ = server.receive(
            Frame.clientPreface
                + Frame.headers(stream: 1, block: Array(block.prefix(4)), endStream: true, endHeaders: false).bytes)
        #expect(server.unfinishedHeaderBlock == 1)
        // A DATA frame inside the block: a connection error (RFC 9113 §6.10).
        let events = server.receive(Frame.data(stream: 1, [1]).bytes)
        #expect(events.contains { if case .connectionError = $0 { true } else { false } })
        _ = server.takeOutput()
        #expect(server.unfinishedHeaderBlock == nil || server.isFinished)
    }
}
