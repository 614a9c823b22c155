import FaultlineCore
import FaultlineHTTP1
import Testing

@testable import FaultlineHTTP2

@Suite struct HTTP2HeadersTests {
    @Test func requestControlDataSplitsFromFields() throws {
        let parsed = try HTTP2Headers.request(
            fields([
                (":method", "GET"), (":scheme", "https"), (":authority", "example.test:8443"), (":path", "/a?b=c"),
                ("accept", "*/*"),
            ]))
        #expect(
            parsed
                == HTTP2Headers.Request(
                    method: "GET", scheme: "https", authority: "example.test:8443", path: "/a?b=c",
                    fields: fields([("accept", "*/*")])))
        #expect(
            HTTP2Headers.requestBlock(parsed)
                == fields([
                    (":method", "GET"), (":scheme", "https"), (":authority", "example.test:8443"), (":path", "/a?b=c"),
                    ("accept", "*/*"),
                ]))
    }

    @Test func connectHasOnlyAnAuthority() throws {
        let connect = try HTTP2Headers.request(fields([(":method", "CONNECT"), (":authority", "example.test:443")]))
        #expect(connect.scheme == nil && connect.path == nil && connect.authority == "example.test:443")
        #expect(
            HTTP2Headers.requestBlock(connect) == fields([(":method", "CONNECT"), (":authority", "example.test:443")]))
        #expect(throws: HTTP2Error.self) {
            try HTTP2Headers.request(fields([(":method", "CONNECT"), (":authority", "a:1"), (":path", "/")]))
        }
    }

    /// RFC 8441 §4: `:protocol` with CONNECT, and then `:scheme`, `:path` and `:authority` too.
    @Test func extendedConnectCarriesAProtocol() throws {
        let block = fields([
            (":method", "CONNECT"), (":protocol", "websocket"), (":scheme", "https"), (":authority", "chat.test"),
            (":path", "/socket"), ("sec-websocket-version", "13"),
        ])
        let request = try HTTP2Headers.request(block)
        #expect(request.protocol == "websocket" && request.path == "/socket" && request.scheme == "https")
        #expect(HTTP2Headers.requestBlock(request) == block)
        for broken in [
            [
                (":method", "GET"), (":protocol", "websocket"), (":scheme", "https"), (":authority", "a"),
                (":path", "/"),
            ],
            [(":method", "CONNECT"), (":protocol", "websocket"), (":authority", "a"), (":path", "/")],
            [(":method", "CONNECT"), (":protocol", "websocket"), (":scheme", "https"), (":authority", "a")],
            [(":method", "CONNECT"), (":protocol", ""), (":scheme", "https"), (":authority", "a"), (":path", "/")],
        ] {
            #expect(throws: HTTP2Error.self, "\(broken)") { try HTTP2Headers.request(fields(broken)) }
        }
    }

    @Test func malformedRequestBlocks() {
        let cases: [[(String, String)]] = [
            [(":scheme", "https"), (":path", "/")],  // no :method
            [(":method", "GET"), (":scheme", "https")],  // no :path
            [(":method", "GET"), (":scheme", "https"), (":path", "")],  // empty :path
            [(":method", "GET"), (":path", "/")],  // no :scheme
            [(":method", "GET"), (":method", "GET"), (":scheme", "https"), (":path", "/")],  // twice
            [(":method", "GET"), ("accept", "*/*"), (":scheme", "https"), (":path", "/")],  // after a field
            [(":method", "GET"), (":scheme", "https"), (":path", "/"), (":status", "200")],  // response pseudo
        ]
        for block in cases {
            #expect(throws: HTTP2Error.self, "\(block)") { try HTTP2Headers.request(fields(block)) }
        }
        do {
            _ = try HTTP2Headers.request(fields([(":method", "GET"), (":scheme", "https")]))
        } catch {
            #expect(error.code == HTTP2Error.malformedRequestHead)
        }
    }

    @Test func responseStatus() throws {
        let response = try HTTP2Headers.response(fields([(":status", "404"), ("content-type", "text/html")]))
        #expect(response == HTTP2Headers.Response(status: 404, fields: fields([("content-type", "text/html")])))
        #expect(HTTP2Headers.status(fields([(":status", "103")])) == 103)
        for bad in ["", "20", "2000", "abc", "099", "+20"] {
            #expect(HTTP2Headers.status(fields([(":status", bad)])) == nil, "\(bad)")
            #expect(throws: HTTP2Error.self) { try HTTP2Headers.response(fields([(":status", bad)])) }
        }
        #expect(throws: HTTP2Error.self) { try HTTP2Headers.response(fields([("content-type", "x")])) }
        #expect(throws: HTTP2Error.self) { try HTTP2Headers.response(fields([(":status", "200"), (":path", "/")])) }
        #expect(
            HTTP2Headers.responseBlock(status: 200, fields: [("Content-Type", "text/plain"), ("Connection", "close")])
                == fields([(":status", "200"), ("content-type", "text/plain")]))
    }

    @Test func connectionSpecificFieldsAreRemoved() {
        let http1: HTTPHeaders = [
            ("Host", "example.test"), ("Connection", "keep-alive, X-Hop"), ("Keep-Alive", "timeout=5"),
            ("Proxy-Connection", "keep-alive"), ("Transfer-Encoding", "chunked"), ("Upgrade", "h2c"),
            ("HTTP2-Settings", "AAMAAABkAAQAoAAAAAIAAAAA"), ("X-Hop", "1"), ("TE", "gzip, trailers"),
            ("Accept", "*/*"), ("Authorization", "Bearer t"), ("Cookie", "a=1"),
        ]
        #expect(
            HTTP2Headers.fields(fromHTTP1: http1) == [
                HTTP2Header("accept", "*/*"), HTTP2Header("authorization", "Bearer t", neverIndexed: true),
                HTTP2Header("cookie", "a=1", neverIndexed: true), HTTP2Header("te", "trailers"),
            ])
        #expect(HTTP2Headers.fields(fromHTTP1: [("TE", "gzip")]) == [])
        #expect(HTTP2Headers.authority(fromHTTP1: http1) == "example.test")
        #expect(HTTP2Headers.authority(fromHTTP1: [("Accept", "*/*")]) == nil)
        for name in ["Connection", "keep-alive", "PROXY-CONNECTION", "transfer-encoding", "Upgrade"] {
            #expect(HTTP2Headers.isConnectionSpecific(name: name), "\(name)")
        }
        #expect(HTTP2Headers.isConnectionSpecific(name: "TE", value: "gzip"))
        #expect(!HTTP2Headers.isConnectionSpecific(name: "te", value: "trailers"))
        #expect(!HTTP2Headers.isConnectionSpecific(name: "content-length"))
    }

    @Test func cookieCrumbsAreJoinedForHTTP1() {
        let block = fields([
            (":method", "GET"), ("cookie", "a=1"), ("accept", "*/*"), ("cookie", "b=2"), ("cookie", "c=3"),
            ("x-last", "z"),
        ])
        #expect(
            HTTP2Headers.http1Fields(block) == [("cookie", "a=1; b=2; c=3"), ("accept", "*/*"), ("x-last", "z")])
        #expect(HTTP2Headers.http1Fields(fields([("accept", "*/*")])) == [("accept", "*/*")])
    }

    @Test func hostComesFromTheAuthority() {
        let request = HTTP2Headers.Request(
            method: "GET", scheme: "https", authority: "right.test", path: "/",
            fields: fields([("accept", "*/*"), ("host", "wrong.test")]))
        #expect(HTTP2Headers.http1Fields(of: request) == [("host", "right.test"), ("accept", "*/*")])
        var noAuthority = request
        noAuthority.authority = nil
        #expect(HTTP2Headers.http1Fields(of: noAuthority) == [("host", "wrong.test"), ("accept", "*/*")])
    }

    @Test func errorCodeAndSettingNames() {
        #expect(HTTP2ErrorCode.protocolError.description == "PROTOCOL_ERROR")
        #expect(HTTP2ErrorCode.http11Required.description == "HTTP_1_1_REQUIRED")
        #expect(HTTP2ErrorCode(rawValue: 0x1f).description == "UNKNOWN_0x1f")
        #expect(HTTP2ErrorCode(rawValue: 0xb) == .enhanceYourCalm)
        #expect(HTTP2Setting(identifier: 3, value: 100).description == "SETTINGS_MAX_CONCURRENT_STREAMS=100")
        #expect(HTTP2Setting(identifier: 0x2a, value: 1).name == "SETTINGS_0x2a")
    }
}
