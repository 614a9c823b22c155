import FaultlineCore
import Testing

@testable import FaultlineHTTP2

@Suite struct LimitsTests {
    static let getBlock: [(String, String)] = [
        (":method", "GET"), (":scheme", "https"), (":authority", "example.test"), (":path", "/"),
    ]

    /// RFC 9113 §6.5.2's size of a header list: name + value + 32 per field.
    static func listSize(_ pairs: [(String, String)]) -> Int {
        pairs.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 32 }
    }

    // MARK: SETTINGS_MAX_HEADER_LIST_SIZE

    @Test func headerListOverTheLimitIsRefused() throws {
        var limits = HTTP2Connection.Limits()
        limits.maxHeaderListSize = 1000
        let pair = try ConnectionPair(server: limits)
        let big = request("GET", "/", [("x-big", String(repeating: "b", count: 1000))])
        let id = try pair.client.startRequest(headers: big, endStream: true)
        pair.pump()
        #expect(pair.serverEvents.streamErrors == [id])
        #expect(!pair.serverEvents.contains { if case .headers = $0 { true } else { false } })
        #expect(pair.serverFrames.ofType(Frame.rstStream).map(\.errorCode) == [.enhanceYourCalm])
        #expect(
            pair.clientEvents.about(id) == [
                .streamReset(stream: id, code: .enhanceYourCalm), .streamClosed(stream: id, code: .enhanceYourCalm),
            ])
        // The connection goes on.
        let next = try pair.client.startRequest(headers: request("GET", "/small"), endStream: true)
        pair.pump()
        #expect(
            pair.serverEvents.about(next).first
                == .headers(stream: next, headers: request("GET", "/small"), endStream: true))
    }

    @Test func headerListExactlyAtTheLimitIsAccepted() throws {
        let base = Self.getBlock
        let padding = 200
        let pairs = base + [("x-pad", String(repeating: "p", count: padding))]
        var limits = HTTP2Connection.Limits()
        limits.maxHeaderListSize = UInt32(Self.listSize(pairs))
        let accepted = try MalformedInputTests.serve(
            Frame.clientPreface + Frame.headers(stream: 1, pairs, endStream: true).bytes, limits)
        #expect(accepted.events.streamErrors.isEmpty)
        #expect(accepted.events.about(1).first == .headers(stream: 1, headers: fields(pairs), endStream: true))

        let over = base + [("x-pad", String(repeating: "p", count: padding + 1))]
        let refused = try MalformedInputTests.serve(
            Frame.clientPreface + Frame.headers(stream: 1, over, endStream: true).bytes, limits)
        #expect(refused.events.streamErrors == [1])
        #expect(refused.frames.ofType(Frame.rstStream).count == 1)
    }

    @Test func trailersCountSeparately() throws {
        var limits = HTTP2Connection.Limits()
        limits.maxHeaderListSize = 300
        let input =
            Frame.clientPreface
            + Frame.headers(
                stream: 1, [(":method", "POST"), (":scheme", "https"), (":authority", "a"), (":path", "/")]
            ).bytes
            + Frame.headers(stream: 1, [("x-trailer", String(repeating: "t", count: 400))], endStream: true).bytes
        let (events, frames, _) = try MalformedInputTests.serve(input, limits)
        #expect(events.streamErrors == [1])
        #expect(!events.contains { if case .trailers = $0 { true } else { false } })
        #expect(frames.ofType(Frame.rstStream).map(\.errorCode) == [.enhanceYourCalm])
    }

    // MARK: SETTINGS_MAX_CONCURRENT_STREAMS

    @Test func streamsOverTheLimitAreRefusedBeforeOurSettingsAreAcknowledged() throws {
        var limits = HTTP2Connection.Limits()
        limits.maxConcurrentStreams = 2
        var input = Frame.clientPreface
        for id: Int32 in [1, 3, 5] { input += Frame.headers(stream: id, Self.getBlock).bytes }
        let (events, frames, _) = try MalformedInputTests.serve(input, limits)
        #expect(events.about(1).count == 1 && events.about(3).count == 1)
        #expect(events.streamErrors == [5])
        #expect(frames.ofType(Frame.rstStream).map(\.stream) == [5])
        #expect(frames.ofType(Frame.rstStream).map(\.errorCode) == [.refusedStream])
        #expect(events.connectionErrors.isEmpty)
    }

    /// After the ACK too, the extra stream alone is refused (nghttp2 alone would end the
    /// connection, RFC 9113 §5.1.2 allows either): the others go on, and once one of them has
    /// closed a new stream is taken.
    @Test func streamsOverTheAcknowledgedLimitAreRefusedAndTheOthersGoOn() throws {
        var limits = HTTP2Connection.Limits()
        limits.maxConcurrentStreams = 2
        var input = Frame.clientPreface + Frame.settingsAck().bytes
        for id: Int32 in [1, 3, 5] { input += Frame.headers(stream: id, Self.getBlock).bytes }
        let (events, frames, server) = try MalformedInputTests.serve(input, limits)
        #expect(events.connectionErrors.isEmpty)
        #expect(frames.ofType(Frame.goAway).isEmpty)
        #expect(events.streamErrors == [5])
        #expect(frames.ofType(Frame.rstStream).map(\.stream) == [5])
        #expect(frames.ofType(Frame.rstStream).map(\.errorCode) == [.refusedStream])
        #expect(events.about(1).count == 1 && events.about(3).count == 1)
        #expect(events.about(5).last == .streamClosed(stream: 5, code: .refusedStream))

        // Stream 1 ends both ways; stream 7 then fits, and its trailers-free request is a head.
        server.sendResponseHead(stream: 1, headers: fields([(":status", "200")]), endStream: true)
        var more = server.receive(Frame.data(stream: 1, [], endStream: true).bytes)
        _ = server.takeOutput()
        more += server.takeEvents()
        #expect(more.contains(.streamClosed(stream: 1, code: .noError)))
        more = server.receive(Frame.headers(stream: 7, Self.getBlock, endStream: true).bytes)
        let after = Frame.parse(server.takeOutput())
        #expect(more.about(7).first == .headers(stream: 7, headers: fields(Self.getBlock), endStream: true))
        #expect(after.ofType(Frame.rstStream).isEmpty && more.connectionErrors.isEmpty)
    }

    /// The limit is advertised although nghttp2 is not told it (HTTP2Connection+Admission.swift).
    @Test func theConcurrencyLimitIsAdvertisedFirst() throws {
        var limits = HTTP2Connection.Limits()
        limits.maxConcurrentStreams = 0x0102_0304
        let frames = Frame.parse(try HTTP2Connection(role: .server, limits: limits).takeOutput())
        #expect(frames.first?.type == Frame.settings)
        #expect(Array(frames.first?.payload.prefix(6) ?? []) == [0, 3, 1, 2, 3, 4])
    }

    // MARK: CONTINUATION flood

    /// HEADERS without END_HEADERS, then `count` CONTINUATION frames, the last with END_HEADERS.
    static func continuations(_ count: Int) -> [UInt8] {
        let block = HPACK.literals(Self.getBlock)
        var input =
            Frame.clientPreface + Frame.headers(stream: 1, block: block, endStream: true, endHeaders: false).bytes
        for index in 0..<count {
            let field = HPACK.literal(name: bytes("x-c\(index)"), value: bytes("v"))
            input += Frame.continuation(stream: 1, block: field, endHeaders: index == count - 1).bytes
        }
        return input
    }

    @Test func continuationsUpToTheLimitAreOneHeaderBlock() throws {
        var limits = HTTP2Connection.Limits()
        limits.maxContinuations = 3
        let (events, _, _) = try MalformedInputTests.serve(Self.continuations(3), limits)
        let expected = fields(Self.getBlock + (0..<3).map { ("x-c\($0)", "v") })
        #expect(events.about(1).first == .headers(stream: 1, headers: expected, endStream: true))
        #expect(events.connectionErrors.isEmpty)
    }

    @Test func continuationFloodIsAConnectionError() throws {
        var limits = HTTP2Connection.Limits()
        limits.maxContinuations = 3
        // One CONTINUATION over the limit is enough (and so is a flood of them).
        for count in [4, 50] {
            let (events, _, _) = try MalformedInputTests.serve(Self.continuations(count), limits)
            #expect(events.connectionErrors.count == 1, "\(count) CONTINUATION frames")
        }
        let (events, frames, server) = try MalformedInputTests.serve(Self.continuations(50), limits)
        #expect(events.connectionErrors.count == 1)
        if case .connectionError(let code, let reason)? = events.connectionErrors.first {
            #expect(code == .enhanceYourCalm)
            #expect(reason.contains("CONTINUATION"))
        }
        #expect(!events.contains { if case .headers = $0 { true } else { false } })
        let goAways = frames.ofType(Frame.goAway)
        #expect(goAways.map(\.errorCode) == [.enhanceYourCalm])
        #expect(goAways.map(\.lastStreamID) == [1])
        #expect(server.connectionErrorLastStreamID == 1, "the last stream of our own GOAWAY")
        #expect(frames.first?.type == Frame.settings)  // our preface still comes first
        #expect(server.isFinished)
    }

    // MARK: Rapid reset (CVE-2023-44487)

    /// `count` streams opened and reset at once.
    static func rapidResets(_ count: Int) -> [UInt8] {
        var input = Frame.clientPreface
        for index in 0..<count {
            let id = Int32(2 * index + 1)
            input += Frame.headers(stream: id, Self.getBlock).bytes + Frame.rstStream(stream: id, code: .cancel).bytes
        }
        return input
    }

    @Test func resetsWithinTheBurstAreFine() throws {
        var limits = HTTP2Connection.Limits()
        limits.resetBurst = 5
        limits.resetRatePerSecond = 0  // no refill: the count is exact whatever the clock does
        let (events, frames, _) = try MalformedInputTests.serve(Self.rapidResets(5), limits)
        #expect(events.connectionErrors.isEmpty)
        #expect(frames.ofType(Frame.goAway).isEmpty)
        #expect(events.filter { if case .streamReset = $0 { true } else { false } }.count == 5)
    }

    @Test func rapidResetEndsTheConnection() throws {
        var limits = HTTP2Connection.Limits()
        limits.resetBurst = 5
        limits.resetRatePerSecond = 0
        let (events, frames, server) = try MalformedInputTests.serve(Self.rapidResets(6), limits)
        #expect(events.connectionErrors.count == 1)
        // nghttp2 1.52 (Debian's CVE-2023-44487 backport, as upstream 1.57) sends INTERNAL_ERROR.
        if case .connectionError(let code, let reason)? = events.connectionErrors.first {
            #expect(code == .internalError)
            #expect(reason.contains("rapid reset"))
        }
        let goAways = frames.ofType(Frame.goAway)
        #expect(goAways.map(\.errorCode) == [.internalError])
        #expect(goAways.map(\.lastStreamID) == [11])
        // No new streams are accepted afterwards; with none active the connection is done.
        let later = server.receive(Frame.headers(stream: 13, Self.getBlock, endStream: true).bytes)
        #expect(later.about(13).isEmpty)
        #expect(server.isFinished)
    }

    // MARK: Answers nobody reads (RFC 9113 §10.5)

    @Test func aPingFloodInOneReadIsAConnectionError() throws {
        let server = try serverAfterPreface()
        let pings = (0..<1500).flatMap { Frame.ping(UInt64($0)).bytes }
        let events = server.receive(pings)
        #expect(events.connectionErrors.count == 1)
        if case .connectionError(let code, let reason)? = events.connectionErrors.first {
            #expect(code == .enhanceYourCalm)
            #expect(reason.contains("flood"))
        }
        let frames = Frame.parse(server.takeOutput())
        #expect(frames.last?.type == Frame.goAway && frames.last?.errorCode == .enhanceYourCalm)
        #expect(server.isFinished)
    }

    @Test func answersPileUpOnlyToTheFlushLimitThenNghttp2sOwnLimitApplies() throws {
        // A peer that sends PINGs and never reads; the caller keeps reading and never writes.
        let server = try serverAfterPreface()
        let batch = (0..<500).flatMap { Frame.ping(UInt64($0)).bytes }
        var events: [HTTP2Event] = []
        var batches = 0
        while events.connectionErrors.isEmpty, batches < 100 {
            events += server.receive(batch)
            batches += 1
        }
        #expect(events.connectionErrors.count == 1)
        // 64 KiB of PING ACKs (17 bytes each) are taken out of nghttp2; then its own limit of
        // 1000 queued ACKs ends the connection.
        let acks = Frame.parse(server.takeOutput()).ofType(Frame.ping)
        #expect(acks.count >= HTTP2Connection.controlFlushLimit / 17)
        #expect(acks.count < HTTP2Connection.controlFlushLimit / 17 + 1000)
        #expect(batches < 20)
    }

    // MARK: Limits themselves

    @Test func invalidLimitsAreRefused() {
        var limits = HTTP2Connection.Limits()
        limits.initialWindowSize = 1 << 31
        #expect(throws: HTTP2Error.self) { try HTTP2Connection(role: .server, limits: limits) }
        limits = HTTP2Connection.Limits()
        limits.connectionWindowSize = 0
        #expect(throws: HTTP2Error.self) { try HTTP2Connection(role: .client, limits: limits) }
    }

    @Test func advertisedSettingsFollowTheLimits() throws {
        var limits = HTTP2Connection.Limits()
        limits.maxConcurrentStreams = 7
        limits.initialWindowSize = 12345
        limits.maxHeaderListSize = 4321
        limits.connectionWindowSize = 65535 + 1000
        let server = try HTTP2Connection(role: .server, limits: limits)
        let frames = Frame.parse(server.takeOutput())
        #expect(frames.map(\.type) == [Frame.settings, Frame.windowUpdate])
        #expect(
            frames.first?.payload
                == Frame.settings([(0x3, 7), (0x4, 12345), (0x6, 4321), (0x2, 0), (0x8, 1)]).payload)
        #expect(frames.last?.payload == Frame.be32(1000))
    }
}
