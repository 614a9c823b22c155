import FaultlineHTTP1
import FaultlineTrace
import Foundation
import Testing

@testable import FaultlineCapture

/// A HAR as mitmproxy writes one (credentials in clear, decoded text with the compressed size, a
/// failed flow with status 0, a CONNECT), plus a browser's HTTP/2 entry with pseudo-headers.
let toolHAR = #"""
    {"log": {"version": "1.2", "creator": {"name": "mitmproxy", "version": "11.0.2", "comment": ""}, "pages": [],
     "entries": [
      {"startedDateTime": "2026-03-01T10:00:00.250000+00:00", "time": 12.5,
       "request": {"method": "POST", "url": "http://api.test:8080/login?next=%2Fhome&q=a+b", "httpVersion": "HTTP/1.1",
         "cookies": [], "headers": [{"name": "Host", "value": "api.test:8080"}, {"name": "Connection", "value": "keep-alive, X-Hop"},
           {"name": "X-Hop", "value": "1"}, {"name": "Authorization", "value": "Bearer raw-token-123"},
           {"name": "Content-Type", "value": "application/json"}, {"name": "Content-Length", "value": "99"}],
         "queryString": [], "headersSize": 120, "bodySize": 26,
         "postData": {"mimeType": "application/json", "text": "{\"password\":\"pw-raw-456\"}", "params": []}},
       "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
         "headers": [{"name": "Content-Type", "value": "text/plain"}, {"name": "Content-Encoding", "value": "gzip"},
           {"name": "Content-Length", "value": "31"}, {"name": "Transfer-Encoding", "value": "chunked"}],
         "content": {"size": 31, "compression": -5, "mimeType": "text/plain", "text": "hello, decoded body é"},
         "redirectURL": "", "headersSize": 90, "bodySize": 31},
       "cache": {}, "timings": {"connect": 1.5, "ssl": -1, "send": 1, "wait": 8, "receive": 2}},
      {"startedDateTime": "2026-03-01T10:00:00.200000Z", "time": 0,
       "request": {"method": "GET", "url": "http://down.test/", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
         "queryString": [], "headersSize": 10, "bodySize": 0},
       "response": {"status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [], "content": {},
         "redirectURL": "", "headersSize": -1, "bodySize": -1, "_error": "connect failed"},
       "cache": {}, "timings": {"send": 0, "wait": 0, "receive": 0}},
      {"startedDateTime": "2026-03-01T11:00:00.220+01:00", "time": 3,
       "request": {"method": "GET", "url": "https://img.test/logo.png", "httpVersion": "HTTP/2.0", "cookies": [],
         "headers": [{"name": ":method", "value": "GET"}, {"name": ":authority", "value": "img.test"},
           {"name": ":scheme", "value": "https"}, {"name": ":path", "value": "/logo.png"}, {"name": "accept", "value": "*/*"}],
         "queryString": [], "headersSize": -1, "bodySize": 0},
       "response": {"status": 200, "statusText": "", "httpVersion": "HTTP/2.0", "cookies": [],
         "headers": [{"name": "content-type", "value": "image/png"}],
         "content": {"size": 4, "mimeType": "image/png", "text": "iVBORw==", "encoding": "base64"},
         "redirectURL": "", "headersSize": -1, "bodySize": 4},
       "cache": {}, "timings": {"blocked": -1, "send": 0.5, "wait": 2, "receive": 0.5}},
      {"startedDateTime": "2026-03-01T10:00:01Z", "time": 1,
       "request": {"method": "CONNECT", "url": "https://img.test:443/", "httpVersion": "HTTP/1.1", "cookies": [],
         "headers": [], "queryString": [], "headersSize": -1, "bodySize": 0},
       "response": {"status": 200, "statusText": "Connection established", "httpVersion": "HTTP/1.1", "cookies": [],
         "headers": [], "content": {"size": 0, "mimeType": ""}, "redirectURL": "", "headersSize": -1, "bodySize": 0},
       "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}
     ]}}
    """#

@Test func aToolsHARBecomesExchangesWithTheirBodies() throws {
    let capture = try importHAR(toolHAR).get()
    // In the order the requests arrived: the image's came first.
    #expect(capture.exchanges.map(\.flow) == [3, 1])
    let login = try #require(capture.exchange(flow: 1))
    // One request for both sides; its body is the upstream request's, as in every capture.
    let request = try #require(login.upstreamRequest)
    #expect(
        login.clientRequest
            == CapturedRequest(
                method: "POST", url: request.url, httpVersion: "HTTP/1.1", headers: request.headers, body: nil))
    #expect(request.url.description == "http://api.test:8080/login?next=%2Fhome&q=a+b")
    // Hop-by-hop fields, and those Connection names, go (RFC 9110 §7.6.1); Content-Length follows the body.
    #expect(request.headers.map(\.name) == ["Host", "Authorization", "Content-Type", "Content-Length"])
    #expect(request.body?.text == #"{"password":"pw-raw-456"}"#)
    #expect(request.headers.first(name: "content-length") == "25")
    let response = try #require(login.response)
    // content.text is decoded: its own length wins over content.size, and Content-Encoding goes.
    #expect(response.body?.text == "hello, decoded body é")
    #expect(response.body?.length == 22)
    #expect(response.headers.map(\.name) == ["Content-Type", "Content-Length"])
    #expect(response.headers.first(name: "content-length") == "22")
    #expect(login.deliveredStatus == 200 && !login.synthetic)

    let image = try #require(capture.exchange(flow: 3))
    #expect(image.clientRequest.headers == [("Host", "img.test"), ("accept", "*/*")])
    #expect(image.response?.body?.bytes == [0x89, 0x50, 0x4E, 0x47])
    #expect(image.response?.reason == "OK")
    #expect(image.clientRequest.httpVersion == "HTTP/2.0")

    #expect(capture.notes.contains { $0.hasPrefix("HAR.json: entries[1]: no response (status 0") })
    #expect(capture.notes.contains { $0.hasPrefix("HAR.json: entries[3]: a CONNECT tunnel") })
    #expect(
        capture.notes.contains("HAR.json: entries[2]: HTTP/2 pseudo-header fields dropped (:authority became Host)"))
    #expect(capture.notes.contains { $0.hasPrefix("HAR.json: entries[0]: content.text is the decoded body") })
    #expect(capture.hasBodies)
}

@Test func stepsAreTimedFromStartedDateTimeAndTimings() throws {
    let capture = try importHAR(toolHAR).get()
    let login = try #require(capture.exchange(flow: 1))
    let image = try #require(capture.exchange(flow: 3))
    // The image started 30 ms before the login (11:00:00.220+01:00 is 10:00:00.220Z).
    #expect(image.received.wall == "2026-03-01T10:00:00.220000Z")
    #expect(login.received.wall == "2026-03-01T10:00:00.250000Z")
    #expect(image.received.monoNanoseconds == 0)
    #expect(login.received.monoNanoseconds == 30_000_000)
    // connect 1.5 + send 1 before it went out, wait 8, receive 2.
    #expect(login.forwarded?.monoNanoseconds == 32_500_000)
    #expect(login.responseReceived?.monoNanoseconds == 40_500_000)
    #expect(login.delivered?.monoNanoseconds == 42_500_000)
    #expect(login.responseEnded?.monoNanoseconds == 42_500_000)
    #expect(login.delivered?.wall == "2026-03-01T10:00:00.262500Z")
    // seq follows time: the image's five steps (it ends at 3 ms) come first.
    #expect(
        [image.received, image.forwarded, image.responseReceived, image.responseEnded, image.delivered].map { $0?.seq }
            == [1, 2, 3, 4, 5])
    #expect(
        [login.received, login.forwarded, login.responseReceived, login.responseEnded, login.delivered].map { $0?.seq }
            == [6, 7, 8, 9, 10])
    #expect(
        capture.timeline.map(\.kind) == [
            .received(flow: 3), .delivered(flow: 3), .received(flow: 1), .delivered(flow: 1),
        ])
    #expect(capture.created == "2026-03-01T10:00:00.220000Z")
}

@Test func rawSecretsMakeTheCaptureKeepThem() throws {
    #expect(try importHAR(toolHAR).get().secrets == .kept)
    // No secret in sight is no proof that none is there.
    let bare = toolHAR.replacingOccurrences(
        of: #"{"name": "Authorization", "value": "Bearer raw-token-123"},"#, with: ""
    )
    .replacingOccurrences(of: "pw-raw-456", with: "")
    #expect(try importHAR(bare).get().secrets == .kept)
    let pseudonyms = toolHAR.replacingOccurrences(of: "raw-token-123", with: "flp.access.L1.1")
        .replacingOccurrences(of: "pw-raw-456", with: "flp.password.none.1")
    #expect(try importHAR(pseudonyms).get().secrets == .pseudonyms)
    let oneRaw = toolHAR.replacingOccurrences(of: "raw-token-123", with: "flp.access.L1.1")
    #expect(try importHAR(oneRaw).get().secrets == .kept)
}

@Test func faultlinesOwnExportRoundTrips() throws {
    let capture = try recordedCapture()
    let back = try HARImporter.capture(fromHAR: HARExporter.har(from: capture), source: "export.har")
    #expect(back.secrets == .pseudonyms)
    #expect(back.hasBodies)
    let exported = HARExporter.exportedExchanges(of: capture)
    #expect(back.exchanges.map(\.flow) == exported.map(\.flow))
    for (original, imported) in zip(exported, back.exchanges) {
        #expect(imported.connection == original.connection)
        #expect(imported.role == original.role)
        #expect(imported.lineage == original.lineage)
        #expect(imported.credentials == original.credentials)
        #expect(imported.duplicateOf == original.duplicateOf)
        #expect(imported.synthetic == original.synthetic)
        #expect(imported.deliveredStatus == original.deliveredStatus)
        #expect(imported.received.wall == original.received.wall)
        let request = original.upstreamRequest ?? original.clientRequest
        let importedRequest = imported.upstreamRequest ?? imported.clientRequest
        #expect(importedRequest.url == request.url)
        #expect(importedRequest.body == request.body)
        #expect(importedRequest.headers == request.headers)
        #expect(imported.response?.body == (original.synthetic ? nil : original.response?.body))
        #expect(imported.response?.headers == (original.synthetic ? nil : original.response?.headers))
        // Each step within a microsecond of where it was.
        for (a, b) in [
            (original.forwarded, imported.forwarded), (original.responseReceived, imported.responseReceived),
        ] {
            guard let a, let b else { continue }
            let (start, back) = (original.received.monoNanoseconds, imported.received.monoNanoseconds)
            #expect(abs(Int64(a.monoNanoseconds - start) - Int64(b.monoNanoseconds - back)) < 1000)
        }
    }
    // A plain trace's export comes back as fingerprints without bodies.
    let plain = try HARImporter.capture(
        fromHAR: HARExporter.har(from: try recordedCapture(plainTrace: true)), source: "plain.har")
    #expect(plain.secrets == .fingerprints)
    #expect(!plain.hasBodies)
}

@Test func customFieldsOfOtherToolsAreIgnored() throws {
    // HAR 1.2, "Custom Fields": a parser ignores custom fields of files it did not write.
    var har = String(decoding: HARExporter.har(from: try recordedCapture()), as: UTF8.self)
    har = har.replacingOccurrences(of: #""name": "faultline""#, with: #""name": "other-tool""#)
    let capture = try importHAR(har).get()
    #expect(capture.exchanges.map(\.flow) == Array(1...8))
    #expect(capture.exchanges.allSatisfy { $0.role == nil && $0.lineage == nil && !$0.synthetic })
    // The upload's base64 body lives in a faultline field: another tool's file has no body there.
    #expect(capture.exchanges[2].upstreamRequest?.body == nil)
}

@Test func malformedHARsAreRefusedWithTheEntryAndField() {
    func error(_ text: String) -> String {
        switch importHAR(text) {
        case .success: "imported"
        case .failure(let error): error.message
        }
    }
    func entry(
        _ request: String = #""method": "GET", "url": "http://a.test/", "headers": []"#,
        _ response: String = #""status": 200, "headers": [], "content": {"size": 0, "mimeType": ""}"#,
        started: String = #""2026-03-01T10:00:00Z""#, extra: String = ""
    ) -> String {
        #"{"startedDateTime": \#(started), "request": {\#(request)}, "response": {\#(response)}\#(extra)}"#
    }
    func log(_ entries: String...) -> String {
        #"{"log": {"version": "1.2", "entries": [\#(entries.joined(separator: ","))]}}"#
    }

    #expect(error("{\"log\": ").hasPrefix("HAR.json: not valid JSON: "))
    #expect(error("{\"lag\": {}}") == "HAR.json: log: missing")
    #expect(error(#"{"log": {"version": "2.0", "entries": []}}"#) == "HAR.json: log.version: HAR 2.0 is not HAR 1.x")
    #expect(error(#"{"log": {"entries": {}}}"#) == "HAR.json: log.entries: expected an array, found an object")
    #expect(
        error(log(entry(), entry(#""method": "GET", "url": "/relative", "headers": []"#)))
            == "HAR.json: entries[1].request.url: not an absolute http(s) URL")
    #expect(
        error(log(entry(), entry(), entry(#""method": "GET", "url": "ftp://a.test/", "headers": []"#)))
            == "HAR.json: entries[2].request.url: not an absolute http(s) URL")
    #expect(
        error(log(entry(#""method": "GET", "url": "http://a.test/""#)))
            == "HAR.json: entries[0].request.headers: missing")
    #expect(
        error(log(entry(#""method": "GET", "url": "http://a.test/", "headers": [{"name": "A"}]"#)))
            == "HAR.json: entries[0].request.headers[0].value: missing")
    #expect(
        error(
            log(
                entry(
                    _: #""method": "GET", "url": "http://a.test/", "headers": []"#, #""status": "200", "headers": []"#))
        )
            == "HAR.json: entries[0].response.status: expected an integer, found a string")
    #expect(
        error(
            log(
                entry(_: #""method": "GET", "url": "http://a.test/", "headers": []"#, #""status": 1000, "headers": []"#)
            ))
            == "HAR.json: entries[0].response.status: 1000 is not an HTTP status code")
    #expect(
        error(log(entry(started: #""yesterday""#)))
            == "HAR.json: entries[0].startedDateTime: not an ISO 8601 date and time (YYYY-MM-DDThh:mm:ss.sTZD)")
    #expect(
        error(log(entry(extra: #", "timings": {"send": "1", "wait": 0, "receive": 0}"#)))
            == "HAR.json: entries[0].timings.send: expected a number, found a string")
    #expect(
        error(
            log(
                entry(
                    _: #""method": "GET", "url": "http://a.test/", "headers": []"#,
                    #""status": 200, "headers": [], "content": {"size": 1, "text": "x", "encoding": "rot13"}"#)))
            == "HAR.json: entries[0].response.content.encoding: unknown encoding 'rot13' (HAR 1.2 writes base64 or none)"
    )
    #expect(
        error(
            log(
                entry(
                    _: #""method": "GET", "url": "http://a.test/", "headers": []"#,
                    #""status": 200, "headers": [], "content": {"size": 1, "text": "%%%", "encoding": "base64"}"#)))
            == "HAR.json: entries[0].response.content.text: not valid base64")
    #expect(
        error(log(entry(#""method": "GET", "url": "http://a.test/", "headers": []"#), "[]"))
            == "HAR.json: entries[1]: expected an object, found an array")
    #expect(error(log(entry())) == "imported")
}

@Test func looksLikeHARTellsHARFromATrace() {
    #expect(HARImporter.looksLikeHAR(Array("  {\"log\": {}}".utf8)))
    #expect(!HARImporter.looksLikeHAR(Array("{\"faultline_trace\":1}\n{\"seq\":1}".utf8)))
    #expect(!HARImporter.looksLikeHAR(Array("[]".utf8)))
}

/// Found by the `har` fuzz target (Fuzz/): a year past 2262 overflowed the nanoseconds and trapped.
@Test func aDateBeyondWhatNanosecondsHoldIsNoDateNotATrap() {
    #expect(WallTime(iso8601: "9038-03-01T11:00:00.220+01:00") == nil)
    #expect(WallTime(iso8601: "2262-04-12T00:00:00Z") == nil)
    #expect(WallTime(iso8601: "2262-04-11T00:00:00Z") != nil)
    #expect(WallTime(httpDate: "Sun, 06 Nov 99999 08:49:37 GMT") == nil)
    #expect(WallTime(httpDate: "Sun, 06 Nov 9223372036854775807 08:49:37 GMT") == nil)
    // The reproducer: the tool HAR with one entry's start in year 9038.
    let har = toolHAR.replacingOccurrences(of: "2026-03-01T11:00:00.220+01:00", with: "9038-03-01T11:00:00.220+01:00")
    guard case .failure(let error) = importHAR(har) else {
        Issue.record("a start in year 9038 was read")
        return
    }
    #expect(error.description.contains("startedDateTime"))
}

/// Found by the `har` fuzz target (Fuzz/): entries starting in 1683 and 2026 are further apart than
/// Int64 nanoseconds reach, and the timeline's offsets overflowed and trapped.
@Test func entriesCenturiesApartOrWithHugeTimingsImportWithoutATrap() throws {
    let har = toolHAR.replacingOccurrences(
        of: "2026-03-01T10:00:00.250000+00:00", with: "1683-03-01T10:00:00.250000+00:00")
    let capture = try importHAR(har).get()
    // The 1683 entry's request arrived first; the others' offsets are over 300 years, exact.
    #expect(capture.exchanges.first?.flow == 1)
    #expect(capture.exchanges.last.map { $0.received.monoNanoseconds > UInt64(Int64.max) } == true)
    let late = toolHAR.replacingOccurrences(of: "2026-03-01T10:00:01Z", with: "2262-04-11T23:00:00Z")
        .replacingOccurrences(
            of: #""timings": {"send": 0, "wait": 1, "receive": 0}"#,
            with: #""timings": {"send": 900000000000, "wait": 900000000000, "receive": 900000000000}"#)
    #expect(throws: Never.self) { try importHAR(late).get() }
    #expect(WallTime(nanoseconds: .min).rfc3339 == "1677-09-21T00:12:43.145224Z")
    #expect(WallTime(nanoseconds: .max).rfc3339 == "2262-04-11T23:47:16.854775Z")
}

@Test func wallTimesReadTheZonesAndFractionsToolsWrite() {
    #expect(WallTime(iso8601: "2026-03-01T10:00:00Z")?.rfc3339 == "2026-03-01T10:00:00.000000Z")
    #expect(WallTime(iso8601: "2026-03-01T10:00:00.123456789+00:00")?.nanoseconds == 1_772_359_200_123_456_789)
    #expect(WallTime(iso8601: "2026-03-01T01:30:00.5-0830")?.rfc3339 == "2026-03-01T10:00:00.500000Z")
    #expect(WallTime(iso8601: "2024-02-29T23:59:59.999+01:00")?.rfc3339 == "2024-02-29T22:59:59.999000Z")
    #expect(WallTime(iso8601: "1969-12-31T23:59:59.5Z")?.rfc3339 == "1969-12-31T23:59:59.500000Z")
    for bad in [
        "2026-03-01", "2026-03-01T10:00:00", "2026-13-01T10:00:00Z", "2026-03-01T10:00:00.Z",
        "2026-03-01T10:00:00Zjunk",
    ] {
        #expect(WallTime(iso8601: bad) == nil, "\(bad)")
    }
    #expect(WallTime(httpDate: "Sun, 06 Nov 1994 08:49:37 GMT")?.rfc3339 == "1994-11-06T08:49:37.000000Z")
    #expect(WallTime(httpDate: "Sunday, 06-Nov-94 08:49:37 GMT")?.rfc3339 == "1994-11-06T08:49:37.000000Z")
    #expect(WallTime(httpDate: "06 Nov 1994 08:49:37 CET") == nil)
}

@Test func formPairsDecodeAndEncode() {
    #expect(
        FormURLEncoding.pairs("a=1&&b=x+y%21&c&d=%ZZ&e=%C3%A9").map { "\($0.name)|\($0.value)" } == [
            "a|1", "b|x y!", "c|", "d|%ZZ", "e|é",
        ])
    #expect(FormURLEncoding.encoded([(name: "a b", value: "é&=~")]) == "a+b=%C3%A9%26%3D~")
}
