import FaultlineCore
import FaultlineHTTP1
import FaultlineTrace
import Testing

@testable import FaultlineCapture

@Test func aCaptureReadsBackAsExchangesWithBodiesAndATimeline() throws {
    let recorder = try TraceRecorder(output: .memory, flushInterval: .zero, capture: CaptureOptions())
    recorder.record(
        .requestReceived, connection: .init(1), flow: .init(7),
        [
            .string("method", "POST"), .target("url", "http://api.test:8080/oauth/token?x=1"),
            .string("version", "HTTP/1.1"),
            .headers("headers", [("Content-Type", "application/x-www-form-urlencoded")]), .string("role", "login"),
        ])
    recorder.record(
        .requestForwarded, connection: .init(1), flow: .init(7),
        [
            .object(
                "request",
                [
                    .string("method", "POST"), .target("url", "http://api.test:8080/oauth/token?x=1"),
                    .headers("headers", [("Content-Type", "application/x-www-form-urlencoded")]),
                ]),
            .content(
                "content",
                CapturedBody(
                    bytes: Array("password=pw-123456".utf8), length: 18,
                    contentType: "application/x-www-form-urlencoded")),
        ])
    recorder.record(
        .responseReceived, connection: .init(1), flow: .init(7),
        [
            .int("status", 200), .string("reason", "OK"), .string("version", "HTTP/1.1"), .string("lineage", "L1"),
            .headers("headers", [("Set-Cookie", "sid=abc-session-1; Path=/")]),
        ])
    recorder.record(
        "response.body", connection: .init(1), flow: .init(7),
        [
            .string("lineage", "L1"),
            .content("content", CapturedBody(bytes: [0xFF, 0xFE], length: 2, contentType: nil)),
        ])
    recorder.record(.mark, [.string("label", "tap logout")])
    recorder.record(.responseDelivered, connection: .init(1), flow: .init(7), [.int("status", 200)])
    let capture = CaptureLoader.capture(from: try TraceReader.read(recorder.memoryContents()), source: "memory")
    #expect(capture.secrets == .pseudonyms)
    #expect(capture.hasBodies)
    let exchange = try #require(capture.answeredExchanges.first)
    #expect(exchange.flow == 7)
    #expect(exchange.role == "login")
    #expect(
        exchange.upstreamRequest?.url
            == RecordedURL(scheme: "http", host: "api.test", port: 8080, path: "/oauth/token", query: "x=1"))
    #expect(exchange.upstreamRequest?.body?.text == "password=flp.password.none.1")
    #expect(exchange.response?.headers.first(name: "set-cookie") == "sid=flp.cookie-sid.L1.1; Path=/")
    #expect(exchange.response?.body?.bytes == [0xFF, 0xFE])
    #expect(exchange.deliveredStatus == 200)
    #expect(capture.timeline.map(\.kind) == [.received(flow: 7), .mark("tap logout"), .delivered(flow: 7)])
}

@Test func recordedURLsSplitIntoTheirParts() throws {
    let url = try #require(RecordedURL("https://API.test/a/b?c=d#frag"))
    #expect(
        url.scheme == "https" && url.host == "api.test" && url.port == 443 && url.path == "/a/b" && url.query == "c=d")
    #expect(url.description == "https://api.test/a/b?c=d")
    #expect(RecordedURL("http://[::1]:9000")?.host == "::1")
    #expect(RecordedURL("http://[::1]:9000")?.description == "http://[::1]:9000/")
    #expect(RecordedURL("ftp://x/") == nil)
    #expect(RecordedURL("api.test:443") == nil)
}
