import FaultlineCore
import FaultlineHTTP1
import FaultlineHTTP2
import Testing

@testable import FaultlineFlow
@testable import FaultlineProxy

/// `UpstreamCodec` over a connection that negotiated `h2`: a server-role `HTTP2Connection` plays
/// the origin, fed what the codec writes; its answers come back at every split point.
@Suite struct HTTP2UpstreamCodecTests {
    static func request(
        _ method: String = "POST", target: String = "/api?x=1", body: FlowBodyLength = .unknown,
        headers: [(String, String)] = [], upgrade: Bool = false
    ) -> OutboundRequest {
        OutboundRequest(
            method: method, target: target, authority: "api.test:8443",
            headers: HTTPHeaders([("Host", "api.test:8443")] + headers), body: body, upgrade: upgrade,
            receivedProtocol: "1.1")
    }

    static func info(_ state: HTTP2UpstreamConnection, reused: Bool = false) -> UpstreamConnectionInfo {
        UpstreamConnectionInfo(
            id: ConnectionID(9), remoteAddress: "127.0.0.1:8443", reused: reused, applicationProtocol: "h2",
            state: state)
    }

    /// A codec that sent `request` (and `body`, then the end) before the connection was there,
    /// and the origin's events for what `didConnect` wrote.
    static func connected(
        _ request: OutboundRequest, body: [UInt8] = [], on upstream: HTTP2UpstreamConnection, origin: HTTP2Connection,
        reused: Bool = false
    ) -> (UpstreamCodec, [HTTP2Event]) {
        var codec = UpstreamCodec(limits: .default, via: "faultline")
        _ = codec.sendHead(request)
        if !body.isEmpty { _ = codec.sendBody(body[...]) }
        _ = codec.sendEnd(trailers: nil)
        let written = codec.didConnect(info(upstream, reused: reused))
        return (codec, origin.receive(written))
    }

    static func drain(_ codec: inout UpstreamCodec) -> [UpstreamCodec.Event] {
        var events: [UpstreamCodec.Event] = []
        while let event = codec.nextEvent() { events.append(event) }
        return events
    }

    /// Head, body and trailers of the events, body pieces joined.
    static func summary(_ events: [UpstreamCodec.Event]) -> (
        head: HTTPResponseHead?, length: FlowBodyLength?, body: [UInt8], trailers: HTTPHeaders?, ended: Bool,
        broke: String?
    ) {
        var result:
            (
                head: HTTPResponseHead?, length: FlowBodyLength?, body: [UInt8], trailers: HTTPHeaders?, ended: Bool,
                broke: String?
            ) =
                (nil, nil, [], nil, false, nil)
        for event in events {
            switch event {
            case .head(let head, let length): (result.head, result.length) = (head, length)
            case .body(let bytes): result.body += bytes
            case .end(let trailers): (result.trailers, result.ended) = (trailers, true)
            case .broke(let code, _): result.broke = code
            case .interim: break
            }
        }
        return result
    }

    @Test func theHeadIsAnHTTP2HeaderBlock() {
        let block = HTTP2UpstreamCodec.block(
            of: Self.request(
                body: .known(5),
                headers: [
                    ("Connection", "keep-alive, X-Hop"), ("X-Hop", "1"), ("Keep-Alive", "timeout=5"),
                    ("Transfer-Encoding", "chunked"), ("Content-Length", "99"), ("TE", "trailers, deflate"),
                    ("X-Test", "kept"), ("Cookie", "a=1"),
                ]),
            via: "faultline")
        #expect(
            block.map(\.name) == [
                ":method", ":scheme", ":authority", ":path", "x-test", "cookie", "content-length", "via", "te",
            ])
        #expect(block.prefix(4).map(\.value) == ["POST", "https", "api.test:8443", "/api?x=1"])
        #expect(block.first { $0.name == "content-length" }?.value == "5")
        #expect(block.first { $0.name == "via" }?.value == "1.1 faultline")
        #expect(block.first { $0.name == "te" }?.value == "trailers")
        #expect(block.first { $0.name == "cookie" }?.neverIndexed == true)
    }

    @Test func aRequestSentBeforeTheConnectionGoesOutAsOneStream() throws {
        let origin = try HTTP2Connection(role: .server)
        let upstream = try HTTP2UpstreamConnection()
        let (codec, events) = Self.connected(Self.request(), body: Array("hello".utf8), on: upstream, origin: origin)
        #expect(codec.isHTTP2)
        let heads = events.compactMap { event -> [HTTP2Header]? in
            if case .headers(1, let headers, false) = event { return headers }
            return nil
        }
        #expect(heads.count == 1)
        #expect(heads.first?.first { $0.name == ":path" }?.value == "/api?x=1")
        // The body and its end go together: the end came before the connection did.
        #expect(events.contains(.data(stream: 1, bytes: Array("hello".utf8), endStream: true)))
    }

    /// The origin's answer (after its SETTINGS, which must come first, RFC 9113 §3.4): head (no
    /// length), two DATA frames and trailers, for stream 1.
    static func answer(
        from origin: HTTP2Connection, status: Int = 200, body: [String] = ["par", "tial"], trailers: Bool = true
    ) -> [UInt8] {
        origin.sendResponseHead(
            stream: 1, headers: [HTTP2Header(":status", String(status)), HTTP2Header("x-origin", "h2")],
            endStream: false)
        for (index, piece) in body.enumerated() {
            origin.sendData(stream: 1, Array(piece.utf8)[...], endStream: !trailers && index == body.count - 1)
        }
        if trailers { origin.sendTrailers(stream: 1, headers: [HTTP2Header("grpc-status", "0")]) }
        return origin.takeOutput()
    }

    @Test func theResponseIsTheSameAtEverySplitPoint() throws {
        var reference: [UInt8]?
        let sample = try HTTP2Connection(role: .server)
        let (_, _) = Self.connected(Self.request(), on: try HTTP2UpstreamConnection(), origin: sample)
        let length = Self.answer(from: sample).count
        for split in 0...length {
            let origin = try HTTP2Connection(role: .server)
            let upstream = try HTTP2UpstreamConnection()
            var (codec, _) = Self.connected(Self.request(), on: upstream, origin: origin)
            let bytes = Self.answer(from: origin)
            if reference == nil { reference = bytes }
            var events: [UpstreamCodec.Event] = []
            for piece in [bytes[..<split], bytes[split...]] where !piece.isEmpty {
                Array(piece).withUnsafeBytes { codec.receive($0) }
                _ = codec.takeOutput()
                events += Self.drain(&codec)
            }
            let seen = Self.summary(events)
            #expect(seen.head?.status == 200 && seen.head?.version == .http2, "split at \(split)")
            #expect(seen.head?.reason == "OK")
            #expect(seen.head?.headers.first(name: "x-origin") == "h2")
            #expect(seen.length == .unknown)
            #expect(seen.body == Array("partial".utf8), "split at \(split)")
            #expect(seen.trailers?.first(name: "grpc-status") == "0" && seen.ended)
            #expect(seen.broke == nil)
        }
    }

    @Test func lengthComesFromContentLengthOrEndStreamNeverFraming() throws {
        func length(method: String, status: Int, fields: [HTTP2Header], endStream: Bool) throws -> FlowBodyLength? {
            let origin = try HTTP2Connection(role: .server)
            var (codec, _) = Self.connected(
                Self.request(method, body: .none), on: try HTTP2UpstreamConnection(), origin: origin)
            origin.sendResponseHead(
                stream: 1, headers: [HTTP2Header(":status", String(status))] + fields, endStream: endStream)
            origin.takeOutput().withUnsafeBytes { codec.receive($0) }
            return Self.summary(Self.drain(&codec)).length
        }
        #expect(
            try length(method: "GET", status: 200, fields: [HTTP2Header("content-length", "42")], endStream: false)
                == .known(42))
        #expect(try length(method: "GET", status: 200, fields: [], endStream: false) == .unknown)
        #expect(try length(method: "GET", status: 200, fields: [], endStream: true) == .known(0))
        #expect(
            try length(method: "HEAD", status: 200, fields: [HTTP2Header("content-length", "42")], endStream: true)
                == FlowBodyLength.none)
        #expect(try length(method: "GET", status: 204, fields: [], endStream: true) == FlowBodyLength.none)
        #expect(try length(method: "GET", status: 304, fields: [], endStream: true) == FlowBodyLength.none)
    }

    @Test func aResetBeforeTheHeadBreaksTheExchange() throws {
        let origin = try HTTP2Connection(role: .server)
        var (codec, _) = Self.connected(
            Self.request("GET", body: .none), on: try HTTP2UpstreamConnection(), origin: origin)
        origin.reset(stream: 1, code: .refusedStream)
        origin.takeOutput().withUnsafeBytes { codec.receive($0) }
        let seen = Self.summary(Self.drain(&codec))
        #expect(seen.broke == "upstream-reset" && seen.head == nil)
        #expect(!codec.status.isReusable && !codec.status.responseStarted)
    }

    @Test func aCleanStreamLeavesTheConnectionForTheNextFlow() throws {
        let origin = try HTTP2Connection(role: .server)
        let upstream = try HTTP2UpstreamConnection()
        var (first, _) = Self.connected(Self.request("GET", body: .none), on: upstream, origin: origin)
        Self.answer(from: origin, trailers: false).withUnsafeBytes { first.receive($0) }
        origin.receive(first.takeOutput()).forEach { _ in }
        #expect(Self.summary(Self.drain(&first)).ended)
        #expect(first.status.isReusable && first.status.responseComplete)
        // The pooled connection's next flow continues the session: stream 3.
        let (second, events) = Self.connected(
            Self.request("GET", target: "/next", body: .none), on: upstream, origin: origin, reused: true)
        #expect(second.isHTTP2)
        #expect(events.contains { if case .headers(3, _, true) = $0 { return true } else { return false } })
    }

    @Test func aGoAwayKeepsTheConnectionOutOfThePool() throws {
        let origin = try HTTP2Connection(role: .server)
        let upstream = try HTTP2UpstreamConnection()
        var (codec, _) = Self.connected(Self.request("GET", body: .none), on: upstream, origin: origin)
        var bytes = Self.answer(from: origin, trailers: false)
        origin.goAway(code: .noError, lastStreamID: 1)
        bytes += origin.takeOutput()
        bytes.withUnsafeBytes { codec.receive($0) }
        #expect(Self.summary(Self.drain(&codec)).ended)
        #expect(codec.status.responseComplete && !codec.status.isReusable)
    }

    @Test func aPooledConnectionGoneBeforeAnyFrameMayBeRetriedFresh() throws {
        let origin = try HTTP2Connection(role: .server)
        let upstream = try HTTP2UpstreamConnection()
        var (codec, _) = Self.connected(Self.request("GET", body: .none), on: upstream, origin: origin, reused: true)
        codec.receiveEOF()
        #expect(codec.status.mayRetryOnFreshConnection)
        codec.restartForRetry()
        // A fresh connection may speak HTTP/1.1: the request is framed for whichever it is.
        let written = codec.didConnect(
            UpstreamConnectionInfo(id: ConnectionID(10), remoteAddress: "127.0.0.1:8443", reused: false))
        #expect(!codec.isHTTP2)
        #expect(String(decoding: written, as: UTF8.self).hasPrefix("GET /api?x=1 HTTP/1.1\r\nHost: api.test:8443\r\n"))
    }

    @Test func h2WithoutASessionFailsClearly() {
        var codec = UpstreamCodec(limits: .default, via: nil)
        _ = codec.sendHead(Self.request("GET", body: .none))
        _ = codec.didConnect(
            UpstreamConnectionInfo(id: ConnectionID(9), remoteAddress: "x", reused: false, applicationProtocol: "h2"))
        #expect(Self.summary(Self.drain(&codec)).broke == "upstream-http2-unavailable")
    }
}
