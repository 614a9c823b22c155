import FaultlineCore
import FaultlineHTTP1
import FaultlineTrace
import Foundation
import Testing

@testable import FaultlineCapture

/// The secrets `recordedCapture` sends in clear; none may appear in what a capture made of them writes.
let rawSecrets = [
    "tok-RAW-access-0001", "cookie-RAW-0002", "tok-RAW-query-0003", "cookie-RAW-new-0004", "pw-RAW-0005",
    "tok-RAW-issued-0006",
]

/// The bytes of recorded flow 2's PNG-like response and flow 3's request body: not UTF-8.
let pngBytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF, 0xFE]
let uploadBytes: [UInt8] = [0xFF, 0x00, 0xFE, 0x01]
/// Flow 8's response as an upstream sent it: gzip's magic, then bytes that are not text.
let gzipBytes: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0xC3, 0x28]

/// A capture recorded as `faultline run --capture` records one (TraceRecorder in capture mode,
/// which replaces the secrets), and read back. Its flows:
/// 1. a login POST with a JSON body, answered 200 with Set-Cookie and a token (role login, L1);
/// 2. a GET presenting the token in Authorization and the query, answered with binary bytes;
/// 3. a PUT with a binary body, answered 204; 4. a request the proxy answered 503 (synthetic);
/// 5. a CONNECT; 6. a copy of flow 1 (`duplicate_of`); 7. a response cut at a 16-byte body limit,
/// with trailers; 8. a gzip-encoded response whose status a rule changed to 203; 9. an upstream head whose body broke, answered 502
/// by the proxy. A mark sits between flows 3 and 4.
func recordedCapture(secrets: CaptureOptions.Secrets = .pseudonyms, plainTrace: Bool = false) throws -> Capture {
    let recorder = try TraceRecorder(
        output: .memory, flushInterval: .zero,
        capture: plainTrace ? nil : CaptureOptions(secrets: secrets, bodyLimit: 64))
    let access = "access=" + recorder.fingerprint("tok-RAW-access-0001", kind: "access")
    func content(_ bytes: [UInt8], _ type: String?, length: Int? = nil) -> TraceField {
        .content("content", CapturedBody(bytes: bytes, length: Int64(length ?? bytes.count), contentType: type))
    }
    func text(_ text: String, _ type: String?) -> TraceField { content(Array(text.utf8), type) }
    func received(
        _ conn: Int, _ flow: Int, _ method: String, _ url: String, _ headers: [(String, String)],
        _ extra: [TraceField] = []
    ) {
        recorder.record(
            .requestReceived, connection: .init(UInt64(conn)), flow: .init(UInt64(flow)),
            [
                .string("method", method), .target("url", url), .string("version", "HTTP/1.1"),
                .headers("headers", headers),
            ] + extra)
    }
    func forwarded(
        _ conn: Int, _ flow: Int, _ method: String, _ url: String, _ headers: [(String, String)], body: TraceField?,
        length: Int64, _ extra: [TraceField] = []
    ) {
        var fields: [TraceField] = [
            .body("body", BodySummary(length: length, fingerprint: "fp:00000000000000\(String(format: "%02x", flow))")),
            .object("request", [.string("method", method), .target("url", url), .headers("headers", headers)]),
        ]
        if let body, !plainTrace { fields.append(body) }
        recorder.record(.requestForwarded, connection: .init(UInt64(conn)), flow: .init(UInt64(flow)), fields + extra)
    }
    func response(
        _ conn: Int, _ flow: Int, _ status: Int, _ reason: String, _ headers: [(String, String)], body: TraceField,
        _ extra: [TraceField] = []
    ) {
        recorder.record(
            .responseReceived, connection: .init(UInt64(conn)), flow: .init(UInt64(flow)),
            [
                .int("status", status), .string("reason", reason), .string("version", "HTTP/1.1"),
                .headers("headers", headers),
            ] + extra)
        if !plainTrace {
            recorder.record("response.body", connection: .init(UInt64(conn)), flow: .init(UInt64(flow)), [body] + extra)
        }
    }
    func delivered(_ conn: Int, _ flow: Int, _ status: Int, length: Int64, synthetic: Bool = false) {
        var fields: [TraceField] = [.int("status", status)]
        if synthetic { fields.append(.bool("synthetic", true)) }
        fields.append(
            .body("body", BodySummary(length: length, fingerprint: "fp:ffffffffffffff\(String(format: "%02x", flow))")))
        recorder.record(.responseDelivered, connection: .init(UInt64(conn)), flow: .init(UInt64(flow)), fields)
    }

    let login = "http://api.test:8080/oauth/token?client=app"
    let loginHeaders = [
        ("Host", "api.test:8080"), ("Content-Type", "application/json"),
        ("Authorization", "Bearer tok-RAW-access-0001"),
        ("Cookie", "sid=cookie-RAW-0002; theme=dark"),
    ]
    let loginBody = text(#"{"username":"ann","password":"pw-RAW-0005"}"#, "application/json")
    let issued = text(#"{"access_token":"tok-RAW-issued-0006","expires_in":3600}"#, "application/json")
    let loginResponse = [
        ("Content-Type", "application/json"),
        (
            "Set-Cookie",
            "sid=cookie-RAW-new-0004; Path=/; Domain=api.test; Expires=Wed, 21 Oct 2026 07:28:00 GMT; HttpOnly; Secure"
        ),
    ]
    received(1, 1, "POST", login, loginHeaders, [.string("role", "login")])
    forwarded(1, 1, "POST", login, loginHeaders, body: loginBody, length: 44)
    response(1, 1, 200, "OK", loginResponse, body: issued, [.string("lineage", "L1")])
    delivered(1, 1, 200, length: 56)

    let me = "http://api.test:8080/v1/me?access_token=tok-RAW-query-0003&q=fault+line"
    let meHeaders = [("Host", "api.test:8080"), ("Authorization", "Bearer tok-RAW-access-0001")]
    received(
        1, 2, "GET", me, meHeaders,
        [.string("role", "business"), .string("lineage", "L1"), .strings("credentials", [access])])
    forwarded(1, 2, "GET", me, meHeaders, body: nil, length: 0)
    response(1, 2, 200, "OK", [("Content-Type", "image/png")], body: content(pngBytes, "image/png"))
    delivered(1, 2, 200, length: Int64(pngBytes.count))

    let upload = "http://api.test:8080/v1/files/1"
    let uploadHeaders = [("Host", "api.test:8080"), ("Content-Type", "application/octet-stream")]
    received(2, 3, "PUT", upload, uploadHeaders)
    forwarded(
        2, 3, "PUT", upload, uploadHeaders, body: content(uploadBytes, "application/octet-stream"),
        length: Int64(uploadBytes.count))
    response(2, 3, 204, "No Content", [], body: content([], nil))
    delivered(2, 3, 204, length: 0)

    recorder.record(.mark, [.string("label", "tap logout")])

    received(2, 4, "GET", "http://api.test:8080/slow", [("Host", "api.test:8080")])
    delivered(2, 4, 503, length: 19, synthetic: true)

    received(3, 5, "CONNECT", "api.test:443", [("Host", "api.test:443")])

    received(4, 6, "POST", login, loginHeaders, [.string("role", "login"), .int("duplicate_of", 1)])
    forwarded(4, 6, "POST", login, loginHeaders, body: loginBody, length: 44, [.int("duplicate_of", 1)])
    response(4, 6, 200, "OK", loginResponse, body: issued, [.int("duplicate_of", 1)])

    let big = String(repeating: "0123456789", count: 10)
    received(1, 7, "GET", "http://api.test:8080/big", [("Host", "api.test:8080")])
    forwarded(1, 7, "GET", "http://api.test:8080/big", [("Host", "api.test:8080")], body: nil, length: 0)
    recorder.record(
        .responseReceived, connection: .init(1), flow: .init(7),
        [
            .int("status", 200), .string("reason", "OK"), .string("version", "HTTP/1.1"),
            .headers("headers", [("Content-Type", "text/plain"), ("Trailer", "X-Checksum")]),
        ])
    if !plainTrace {
        recorder.record(
            "response.body", connection: .init(1), flow: .init(7),
            [
                content(Array(big.utf8.prefix(64)), "text/plain", length: 100),
                .headers("trailers", [("X-Checksum", "abc")]),
            ])
    }
    delivered(1, 7, 200, length: 100)

    received(1, 8, "GET", "http://api.test:8080/zipped", [("Host", "api.test:8080"), ("Accept-Encoding", "gzip")])
    forwarded(
        1, 8, "GET", "http://api.test:8080/zipped", [("Host", "api.test:8080"), ("Accept-Encoding", "gzip")], body: nil,
        length: 0)
    response(
        1, 8, 200, "OK", [("Content-Type", "text/plain"), ("Content-Encoding", "gzip")],
        body: content(gzipBytes, "text/plain"))
    delivered(1, 8, 203, length: Int64(gzipBytes.count))  // a response rule changed the status

    // The upstream's head came, then its body broke: the proxy answered 502 itself.
    received(1, 9, "GET", "http://api.test:8080/broken", [("Host", "api.test:8080")])
    forwarded(1, 9, "GET", "http://api.test:8080/broken", [("Host", "api.test:8080")], body: nil, length: 0)
    recorder.record(
        .responseReceived, connection: .init(1), flow: .init(9),
        [
            .int("status", 200), .string("reason", "OK"), .string("version", "HTTP/1.1"),
            .headers("headers", [("Content-Length", "10")]),
        ])
    delivered(1, 9, 502, length: 120, synthetic: true)

    return CaptureLoader.capture(from: try TraceReader.read(recorder.memoryContents()), source: "memory")
}

/// A capture whose every field is set by hand, with moments at known times: flow 10 forwarded
/// 2.5 ms after it arrived, answered 4 ms later, delivered 1.25 ms after that.
func handBuiltCapture() -> Capture {
    func moment(_ seq: UInt64, _ microsAfterStart: UInt64) -> Moment {
        Moment(
            seq: seq, monoNanoseconds: 5_000_000_000 + microsAfterStart * 1000,
            wall: WallTime(nanoseconds: 1_800_000_000_000_000_000 + Int64(microsAfterStart) * 1000).rfc3339)
    }
    let url = RecordedURL(
        scheme: "https", host: "api.test", port: 8443, path: "/v1/items", query: "page=2&access_token=flp.access.L1.1")
    var exchange = CapturedExchange(
        flow: 10, received: moment(3, 0),
        clientRequest: CapturedRequest(
            method: "POST", url: url, httpVersion: "HTTP/1.1",
            headers: [
                ("Host", "api.test:8443"), ("Authorization", "Bearer flp.access.L1.1"),
                ("Content-Type", "application/json"),
            ],
            body: nil))
    exchange.connection = 4
    exchange.role = "business"
    exchange.lineage = "L1"
    exchange.credentials = ["access=flp.access.L1.1"]
    exchange.forwarded = moment(4, 2500)
    var upstream = exchange.clientRequest
    upstream.headers.add(name: "Via", value: "1.1 faultline")
    // A line separator, a quote, a tab and a non-ASCII letter: a capture line must stay one line.
    let body = Array("{\"line\":\"a\u{2028}b \\\"q\\\" é\t\"}".utf8)
    upstream.body = CapturedContent(bytes: body)
    exchange.upstreamRequest = upstream
    exchange.forwardedBody = BodySummary(length: Int64(body.count), fingerprint: "fp:0123456789abcdef")
    exchange.responseReceived = moment(6, 6500)
    exchange.response = CapturedResponse(
        status: 201, reason: "Created", httpVersion: "HTTP/1.1",
        headers: [("Content-Type", "application/json"), ("Set-Cookie", "sid=flp.cookie-sid.L1.2; Path=/")],
        body: CapturedContent(bytes: [0x00, 0x01, 0xC3], length: 3), trailers: [("X-Sum", "1")])
    exchange.responseEnded = moment(7, 7700)
    exchange.delivered = moment(8, 7750)
    exchange.deliveredStatus = 201
    exchange.deliveredBody = BodySummary(length: 3, fingerprint: "fp:fedcba9876543210")
    var copy = exchange
    copy.flow = 11
    copy.duplicateOf = 10
    copy.received = moment(9, 8000)
    copy.forwarded = moment(10, 8100)
    copy.responseReceived = moment(11, 9000)
    copy.responseEnded = moment(12, 9100)
    copy.delivered = nil
    copy.deliveredStatus = nil
    copy.deliveredBody = nil
    var answered = CapturedExchange(flow: 12, received: moment(14, 10_000), clientRequest: exchange.clientRequest)
    answered.delivered = moment(15, 10_500)
    answered.deliveredStatus = 429
    answered.synthetic = true
    return Capture(
        source: "hand", secrets: .pseudonyms, hasBodies: true, exchanges: [exchange, copy, answered],
        timeline: [
            TimelineEntry(.received(flow: 10), at: exchange.received),
            TimelineEntry(.mark("first"), at: moment(5, 3000)),
            TimelineEntry(.delivered(flow: 10), at: exchange.delivered!),
            TimelineEntry(.mark("line\nbreak"), at: moment(13, 9500)),
            TimelineEntry(.received(flow: 12), at: answered.received),
            TimelineEntry(.delivered(flow: 12), at: answered.delivered!),
        ],
        created: "2027-01-15T08:00:00.000000Z", bodyLimit: 4096)
}

/// The HAR document of a capture, parsed back.
func exportedHAR(_ capture: Capture) throws -> JSONValue {
    try JSONValue(parsing: HARExporter.har(from: capture))
}

/// `log.entries` of a HAR document.
func entries(_ har: JSONValue) throws -> [JSONValue] {
    try #require(har["log"]?["entries"]?.arrayValue)
}

/// A HAR file's capture, or the load error's message.
func importHAR(_ text: String, source: String = "HAR.json") -> Result<Capture, CaptureLoadError> {
    do throws(CaptureLoadError) {
        return .success(try HARImporter.capture(fromHAR: Array(text.utf8), source: source))
    } catch {
        return .failure(error)
    }
}

/// A fresh directory under the system's temporary directory.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("faultline-capture-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The permission bits of the file at `path`.
func fileMode(_ path: String) throws -> Int {
    try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
}
