import FaultlineCore
import Testing

@testable import FaultlineHTTP2

@Suite struct ResetAndGoAwayTests {
    @Test func clientResetsAStream() throws {
        let pair = try ConnectionPair()
        let id = try pair.client.startRequest(headers: request("POST", "/"), endStream: false)
        pair.client.sendData(stream: id, bytes("partial")[...], endStream: false)
        pair.pump()
        pair.client.reset(stream: id, code: .cancel)
        pair.pump()
        #expect(pair.clientFrames.ofType(Frame.rstStream).map(\.errorCode) == [.cancel])
        #expect(
            pair.serverEvents.about(id).suffix(2) == [
                .streamReset(stream: id, code: .cancel), .streamClosed(stream: id, code: .cancel),
            ])
        #expect(pair.clientEvents.merged(id) == [.streamClosed(stream: id, code: .cancel)])
        // Our own reset is not a refusal.
        #expect(pair.clientEvents.streamErrors.isEmpty && pair.serverEvents.streamErrors.isEmpty)
        // Anything for the stream afterwards is ignored, not a crash.
        pair.client.sendData(stream: id, bytes("late")[...], endStream: true)
        pair.server.sendResponseHead(stream: id, headers: fields([(":status", "200")]), endStream: true)
        pair.pump()
        #expect(pair.clientEvents.merged(id).count == 1)
    }

    @Test func serverResetsAStreamWithItsCode() throws {
        let pair = try ConnectionPair()
        let id = try pair.client.startRequest(headers: request("GET", "/"), endStream: true)
        pair.pump()
        pair.server.sendResponseHead(stream: id, headers: fields([(":status", "200")]), endStream: false)
        pair.server.sendData(stream: id, bytes("some")[...], endStream: false)
        pair.pump()
        pair.server.reset(stream: id, code: .enhanceYourCalm)
        #expect(pair.server.bufferedOutboundBytes(stream: id) == 0)
        pair.pump()
        #expect(pair.serverFrames.ofType(Frame.rstStream).map(\.errorCode) == [.enhanceYourCalm])
        #expect(
            pair.clientEvents.about(id).suffix(2) == [
                .streamReset(stream: id, code: .enhanceYourCalm), .streamClosed(stream: id, code: .enhanceYourCalm),
            ])
        #expect(pair.serverEvents.about(id).last == .streamClosed(stream: id, code: .enhanceYourCalm))
    }

    /// A reset after queued data keeps the response head and every byte queued before it, in
    /// order, then RST_STREAM (a fault "after N body bytes"); a plain reset would overtake them.
    @Test(arguments: [true, false]) func aResetAfterQueuedDataFollowsTheBytes(afterQueuedData: Bool) throws {
        let pair = try ConnectionPair()
        let id = try pair.client.startRequest(headers: request("GET", "/"), endStream: true)
        pair.pump()
        pair.server.sendResponseHead(stream: id, headers: fields([(":status", "200")]), endStream: false)
        pair.server.sendData(stream: id, bytes("first part")[...], endStream: false)
        pair.server.reset(stream: id, code: .cancel, afterQueuedData: afterQueuedData)
        // Nothing queued after the reset goes out.
        pair.server.sendData(stream: id, bytes("never")[...], endStream: true)
        pair.pump()
        #expect(pair.serverFrames.ofType(Frame.rstStream).map(\.errorCode) == [.cancel])
        let types = pair.serverFrames.filter { $0.stream == id }.map(\.type)
        if afterQueuedData {
            #expect(types == [Frame.headers, Frame.data, Frame.rstStream])
            #expect(pair.clientEvents.body(id) == bytes("first part"))
            #expect(pair.clientEvents.about(id).contains { if case .headers = $0 { true } else { false } })
        } else {
            #expect(types == [Frame.rstStream])
            #expect(pair.clientEvents.body(id).isEmpty)
        }
        #expect(pair.clientEvents.about(id).last == .streamClosed(stream: id, code: .cancel))
    }

    /// With the queue empty and no head yet, a reset after queued data is a plain reset.
    @Test func aResetAfterQueuedDataWithNothingQueuedIsImmediate() throws {
        let pair = try ConnectionPair()
        let id = try pair.client.startRequest(headers: request("GET", "/"), endStream: true)
        pair.pump()
        pair.server.reset(stream: id, code: .refusedStream, afterQueuedData: true)
        pair.pump()
        #expect(pair.serverFrames.filter { $0.stream == id }.map(\.type) == [Frame.rstStream])
        #expect(pair.clientEvents.about(id).last == .streamClosed(stream: id, code: .refusedStream))
    }

    @Test func aRequestResetBeforeItsHeadersLeftIsWithdrawn() throws {
        let pair = try ConnectionPair()
        let id = try pair.client.startRequest(headers: request("GET", "/"), endStream: true)
        pair.client.reset(stream: id, code: .cancel)
        pair.pump()
        #expect(pair.clientFrames.ofType(Frame.headers).isEmpty)
        #expect(pair.clientEvents.about(id) == [.streamClosed(stream: id, code: .cancel)])
        #expect(pair.serverEvents.about(id).isEmpty)
    }

    @Test func serverGoAway() throws {
        let pair = try ConnectionPair()
        let first = try pair.client.startRequest(headers: request("GET", "/1"), endStream: true)
        let second = try pair.client.startRequest(headers: request("GET", "/2"), endStream: true)
        pair.pump()
        // Stream 3 is beyond the last stream the server will process: the client learns it was
        // not processed (REFUSED_STREAM, safe to retry, RFC 9113 §6.8).
        pair.server.goAway(code: .noError, lastStreamID: first, debug: "draining")
        pair.pump()
        let goAways = pair.serverFrames.ofType(Frame.goAway)
        #expect(goAways.map(\.lastStreamID) == [first] && goAways.map(\.errorCode) == [.noError])
        #expect(pair.clientEvents.contains(.goAway(lastStreamID: first, code: .noError, debug: "draining")))
        #expect(pair.clientEvents.about(second).last == .streamClosed(stream: second, code: .refusedStream))
        #expect(throws: HTTP2Error.self) {
            try pair.client.startRequest(headers: request("GET", "/3"), endStream: true)
        }
        do {
            _ = try pair.client.startRequest(headers: request("GET", "/3"), endStream: true)
        } catch {
            #expect(error.code == HTTP2Error.noNewStreams)
        }
        #expect(!pair.client.canStartRequest)
        #expect(pair.serverEvents.connectionErrors.isEmpty && pair.clientEvents.connectionErrors.isEmpty)

        // The first stream still completes; then both sides are finished.
        pair.server.sendResponseHead(stream: first, headers: fields([(":status", "200")]), endStream: true)
        pair.pump()
        #expect(pair.clientEvents.about(first).last == .streamClosed(stream: first, code: .noError))
        #expect(pair.server.isFinished)
        #expect(pair.client.isFinished)
    }

    @Test func clientGoAwayWithTheLastProcessedStream() throws {
        let pair = try ConnectionPair()
        pair.pump()
        pair.client.goAway(code: .enhanceYourCalm, debug: "bye")
        pair.pump()
        let goAways = pair.clientFrames.ofType(Frame.goAway)
        #expect(goAways.map(\.lastStreamID) == [0] && goAways.map(\.errorCode) == [.enhanceYourCalm])
        #expect(pair.serverEvents.contains(.goAway(lastStreamID: 0, code: .enhanceYourCalm, debug: "bye")))
        // Our own GOAWAY is not a connection error.
        #expect(pair.clientEvents.connectionErrors.isEmpty)
        #expect(pair.client.isFinished && pair.server.isFinished)
        #expect(throws: HTTP2Error.self) { try pair.client.startRequest(headers: request("GET", "/"), endStream: true) }
    }

    @Test func goAwayDefaultsToTheLastStreamProcessed() throws {
        let pair = try ConnectionPair()
        for index in 0..<3 { _ = try pair.client.startRequest(headers: request("GET", "/\(index)"), endStream: true) }
        pair.pump()
        pair.server.goAway(code: .noError)
        pair.pump()
        #expect(pair.serverFrames.ofType(Frame.goAway).map(\.lastStreamID) == [5])
    }

    @Test func wrongRoleAndUnknownStreamsAreHarmless() throws {
        let pair = try ConnectionPair()
        #expect(throws: HTTP2Error.self) { try pair.server.startRequest(headers: request("GET", "/"), endStream: true) }
        pair.server.sendResponseHead(stream: 7, headers: fields([(":status", "200")]), endStream: true)
        pair.client.sendData(stream: 9, bytes("x")[...], endStream: true)
        pair.client.sendTrailers(stream: 9, headers: [])
        pair.client.consumed(stream: 11, bytes: 10)
        pair.server.reset(stream: 0, code: .cancel)
        pair.pump()
        #expect(pair.client.bufferedOutboundBytes(stream: 9) == 0)
        #expect(pair.clientEvents.connectionErrors.isEmpty && pair.serverEvents.connectionErrors.isEmpty)
    }

    @Test func concurrencyLimitOfThePeer() throws {
        var serverLimits = HTTP2Connection.Limits()
        serverLimits.maxConcurrentStreams = 2
        let pair = try ConnectionPair(server: serverLimits)
        pair.pump()
        let first = try pair.client.startRequest(headers: request("GET", "/1"), endStream: true)
        _ = try pair.client.startRequest(headers: request("GET", "/2"), endStream: true)
        #expect(!pair.client.canStartRequest)
        do {
            _ = try pair.client.startRequest(headers: request("GET", "/3"), endStream: true)
            Issue.record("a third stream opened")
        } catch {
            #expect(error.code == HTTP2Error.concurrencyLimit)
        }
        pair.pump()
        pair.server.sendResponseHead(stream: first, headers: fields([(":status", "200")]), endStream: true)
        pair.pump()
        #expect(pair.client.canStartRequest)
        #expect(try pair.client.startRequest(headers: request("GET", "/3"), endStream: true) == 5)
    }
}
