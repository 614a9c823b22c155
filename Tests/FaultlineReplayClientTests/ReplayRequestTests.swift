import FaultlineCapture
import FaultlineFlow
import FaultlineHTTP1
import Testing

@testable import FaultlineReplayClient

private let target = UpstreamEndpoint(scheme: "http", host: "127.0.0.1", port: 9000, pathPrefix: "/api")

private func recorded(_ headers: HTTPHeaders, body: String? = nil, url: String = "http://api.test:8080/v1/x?a=1")
    -> CapturedRequest
{
    CapturedRequest(
        method: "POST", url: RecordedURL(url)!, httpVersion: "HTTP/1.1", headers: headers,
        body: body.map { CapturedContent(bytes: Array($0.utf8)) })
}

@Test func aRequestGoesToTheTargetWithItsHostAndWithoutHopByHopFields() throws {
    let request = try ReplayRequest(
        recorded: recorded(
            [
                ("Host", "proxy.test:7000"), ("Connection", "keep-alive, X-Hop"), ("X-Hop", "1"),
                ("Keep-Alive", "timeout=5"),
                ("Proxy-Authorization", "Basic abc"), ("Transfer-Encoding", "chunked"), ("Accept", "*/*"),
                ("TE", "trailers"),
                ("Content-Type", "text/plain"),
            ], body: "hello"),
        target: target, keepHost: false, credentials: CredentialMap(findsPseudonyms: true))
    #expect(request.head.method == "POST")
    #expect(request.head.target == "/api/v1/x?a=1")
    #expect(
        request.head.headers == [
            ("Host", "127.0.0.1:9000"), ("Accept", "*/*"), ("Content-Type", "text/plain"), ("Content-Length", "5"),
        ])
    #expect(String(decoding: request.encoded, as: UTF8.self).hasSuffix("Content-Length: 5\r\n\r\nhello"))
}

@Test func keepHostSendsTheRecordedAuthority() throws {
    let request = try ReplayRequest(
        recorded: recorded([("Host", "proxy.test:7000")], url: "https://api.test/v1/x"), target: target, keepHost: true,
        credentials: CredentialMap(findsPseudonyms: true))
    #expect(request.head.headers.first(name: "host") == "api.test")
}

@Test func framingIsRecomputedFromTheBodyAsSent() throws {
    let map = CredentialMap(findsPseudonyms: true, supplied: ["flp.refresh.L1.1": "rt_live/+="])
    let form = try ReplayRequest(
        recorded: recorded(
            [("Content-Type", "application/x-www-form-urlencoded"), ("Content-Length", "41")],
            body: "grant_type=refresh_token&refresh_token=flp.refresh.L1.1"),
        target: target, keepHost: false, credentials: map)
    #expect(String(decoding: form.body, as: UTF8.self) == "grant_type=refresh_token&refresh_token=rt_live%2F%2B%3D")
    #expect(form.head.headers.first(name: "content-length") == "\(form.body.count)")
    // An empty POST that said Content-Length: 0 says it again; a GET without framing adds none.
    let empty = try ReplayRequest(
        recorded: recorded([("Content-Length", "0")]), target: target, keepHost: false, credentials: map)
    #expect(empty.head.headers.first(name: "content-length") == "0")
    let bare = try ReplayRequest(recorded: recorded([]), target: target, keepHost: false, credentials: map)
    #expect(!bare.head.headers.contains(name: "content-length"))
}

@Test func credentialsAreReplacedInTargetHeadersAndBody() throws {
    let map = CredentialMap(
        findsPseudonyms: true, supplied: ["flp.access.L1.1": "at_live", "flp.cookie-session.L1.1": "sess_live"])
    let request = try ReplayRequest(
        recorded: recorded(
            [
                ("Authorization", "Bearer flp.access.L1.1"), ("Cookie", "a=b; session=flp.cookie-session.L1.1"),
                ("Content-Type", "application/json"),
            ],
            body: #"{"token":"flp.access.L1.1","other":"flp.id.L1.1"}"#, url: "http://api.test/v1/x?t=flp.access.L1.1"),
        target: target, keepHost: false, credentials: map)
    #expect(request.head.target == "/api/v1/x?t=at_live")
    #expect(request.head.headers.first(name: "authorization") == "Bearer at_live")
    #expect(request.head.headers.first(name: "cookie") == "a=b; session=sess_live")
    #expect(String(decoding: request.body, as: UTF8.self) == #"{"token":"at_live","other":"flp.id.L1.1"}"#)
    #expect(request.unresolved == ["flp.id.L1.1"])
}

@Test func aBodyTheCaptureCutIsNotSent() {
    var cut = recorded([("Content-Type", "text/plain")], body: "hello")
    cut.body = CapturedContent(bytes: Array("hel".utf8), length: 5, truncated: true)
    #expect(throws: ReplayRequest.Refusal.self) {
        try ReplayRequest(
            recorded: cut, target: target, keepHost: false, credentials: CredentialMap(findsPseudonyms: true))
    }
    // A whole body whose pseudonyms are shorter than the secrets they stand for is not a cut one:
    // the capture says which bodies it cut.
    var scrubbed = recorded([("Content-Type", "text/plain")], body: "password=flp.password.none.1")
    scrubbed.body = CapturedContent(bytes: Array("password=flp.password.none.1".utf8), length: 40)
    #expect(!scrubbed.body!.truncated)
    #expect(throws: Never.self) {
        try ReplayRequest(
            recorded: scrubbed, target: target, keepHost: false, credentials: CredentialMap(findsPseudonyms: true))
    }
}
