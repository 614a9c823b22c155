import FaultlineCore
import FaultlineHTTP1
import FaultlineTrace
import Foundation
import Testing

@testable import FaultlineCapture

@Test func anExportHasOneEntryPerExchangeThatGotAResponseInRequestOrder() throws {
    let har = try exportedHAR(try recordedCapture())
    #expect(har["log"]?["version"] == .string("1.2"))
    #expect(har["log"]?["creator"]?["name"] == .string("faultline"))
    let all = try entries(har)
    // Flow 5 is a CONNECT; the copy (6) got the upstream's answer, so it is an entry too.
    #expect(all.map { $0["_faultline"]?["flow"] } == [1, 2, 3, 4, 6, 7, 8, 9].map { JSONValue.int($0) })
    #expect(
        all.map { $0["request"]?["method"]?.stringValue } == ["POST", "GET", "PUT", "GET", "POST", "GET", "GET", "GET"])
    #expect(all[4]["_faultline"]?["duplicateOf"] == .int(1))
    for entry in all {
        for key in ["startedDateTime", "time", "request", "response", "cache", "timings"] {
            #expect(entry[key] != nil, "\(key)")
        }
        #expect(entry["request"]?["headersSize"] == .int(-1))
        #expect(entry["response"]?["headersSize"] == .int(-1))
    }
}

@Test func pseudonymsStayAndNoRawSecretIsWritten() throws {
    let capture = try recordedCapture()
    let text = String(decoding: HARExporter.har(from: capture), as: UTF8.self)
    for secret in rawSecrets { #expect(!text.contains(secret), "\(secret) is in the HAR") }
    let login = try entries(try exportedHAR(capture))[0]
    let recorded = try #require(capture.exchange(flow: 1)?.upstreamRequest)
    // Every header is written exactly as the capture holds it.
    let headers = try #require(login["request"]?["headers"]?.arrayValue)
    #expect(headers.map { $0["value"]?.stringValue } == recorded.headers.map(\.value))
    #expect(recorded.headers.first(name: "authorization") == "Bearer flp.access.none.1")
    #expect(
        login["request"]?["cookies"]
            == .array([
                .fields([("name", .string("sid")), ("value", .string("flp.cookie-sid.none.1"))]),
                .fields([("name", .string("theme")), ("value", .string("flp.cookie-theme.none.1"))]),
            ]))
    #expect(login["request"]?["postData"]?["text"] == .string(#"{"username":"ann","password":"flp.password.none.1"}"#))
    #expect(login["request"]?["postData"]?["mimeType"] == .string("application/json"))
    #expect(login["response"]?["content"]?["text"] == .string(#"{"access_token":"flp.access.L1.1","expires_in":3600}"#))
    let cookie = try #require(login["response"]?["cookies"]?.arrayValue?.first)
    #expect(
        cookie
            == .fields([
                ("name", .string("sid")), ("value", .string("flp.cookie-sid.L1.1")), ("path", .string("/")),
                ("domain", .string("api.test")),
                ("expires", .string("2026-10-21T07:28:00.000000Z")), ("httpOnly", .bool(true)), ("secure", .bool(true)),
            ]))
    let me = try entries(try exportedHAR(capture))[1]
    let recordedURL = try #require(capture.exchange(flow: 2)?.upstreamRequest?.url)
    let token = try #require(recordedURL.query?.split(separator: "&").first?.dropFirst("access_token=".count))
    #expect(Pseudonym.isPseudonym(String(token)))
    #expect(me["request"]?["url"] == .string("http://api.test:8080/v1/me?access_token=\(token)&q=fault+line"))
    #expect(
        me["request"]?["queryString"]
            == .nameValueList([(name: "access_token", value: String(token)), (name: "q", value: "fault line")]))
    #expect(me["_faultline"]?["credentials"]?.arrayValue?.first?.stringValue?.hasPrefix("access=flp.access.") == true)
    #expect(try exportedHAR(capture)["log"]?["comment"]?.stringValue?.contains("pseudonyms") == true)
}

@Test func bodiesThatAreNotTextAreBase64() throws {
    let all = try entries(try exportedHAR(try recordedCapture()))
    let png = try #require(all[1]["response"]?["content"])
    #expect(png["encoding"] == .string("base64"))
    #expect(png["text"]?.stringValue.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) } == pngBytes)
    #expect(png["size"] == .int(Int64(pngBytes.count)))
    // postData has no `encoding` in HAR 1.2: the text is empty and a custom field holds the bytes.
    let upload = try #require(all[2]["request"]?["postData"])
    #expect(upload["text"] == .string(""))
    #expect(upload["comment"]?.stringValue?.contains("_faultline.bodyBase64") == true)
    #expect(
        upload["_faultline"]?["bodyBase64"]?.stringValue.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) }
            == uploadBytes)
    #expect(all[2]["request"]?["bodySize"] == .int(Int64(uploadBytes.count)))
    // A text body is never base64.
    #expect(all[0]["response"]?["content"]?["encoding"] == nil)
}

@Test func anEncodedBodyIsKeptAsReceivedAndSaysSo() throws {
    let zipped = try entries(try exportedHAR(try recordedCapture()))[6]
    let content = try #require(zipped["response"]?["content"])
    #expect(content["encoding"] == .string("base64"))
    #expect(content["text"]?.stringValue.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) } == gzipBytes)
    #expect(content["_faultline"]?["contentEncoding"] == .string("gzip"))
    #expect(content["comment"]?.stringValue?.contains("gzip-encoded") == true)
    // The entry shows the upstream's response; what the client got instead is said beside it.
    #expect(zipped["response"]?["status"] == .int(200))
    #expect(zipped["_faultline"]?["deliveredStatus"] == .int(203))
}

@Test func aTruncatedBodyGivesItsWholeSizeAndSaysItWasCut() throws {
    let big = try entries(try exportedHAR(try recordedCapture()))[5]
    let content = try #require(big["response"]?["content"])
    #expect(content["size"] == .int(100))
    #expect(content["text"]?.stringValue?.utf8.count == 64)
    #expect(content["comment"]?.stringValue?.contains("the first 64 of 100 bytes") == true)
    #expect(big["_faultline"]?["responseBodyTruncated"] == .bool(true))
    #expect(big["response"]?["bodySize"] == .int(100))
}

@Test func aResponseTheProxyMadeIsWhatTheClientGot() throws {
    let answered = try entries(try exportedHAR(try recordedCapture()))[3]
    #expect(answered["response"]?["status"] == .int(503))
    #expect(answered["response"]?["statusText"] == .string("Service Unavailable"))
    #expect(answered["response"]?["content"]?["size"] == .int(19))
    #expect(answered["_faultline"]?["synthetic"] == .bool(true))
    #expect(answered["request"]?["bodySize"] == .int(-1))
    // The upstream had answered, but the client got the proxy's 502: that is the entry's response.
    let broken = try entries(try exportedHAR(try recordedCapture()))[7]
    #expect(broken["response"]?["status"] == .int(502))
    #expect(broken["response"]?["headers"] == .array([]))
    #expect(broken["response"]?["bodySize"] == .int(120))
    #expect(broken["_faultline"]?["synthetic"] == .bool(true))
    #expect(broken["_faultline"]?["deliveredStatus"] == nil)
    #expect(broken["_faultline"]?["upstreamStatus"] == .int(200))
}

@Test func faultlineIDsAreOnEveryEntry() throws {
    let capture = try recordedCapture()
    let all = try entries(try exportedHAR(capture))
    for entry in all {
        let flow = try #require(entry["_faultline"]?["flow"]?.intValue)
        let exchange = try #require(capture.exchange(flow: flow))
        #expect(entry["_faultline"]?["connection"]?.intValue == exchange.connection)
        #expect(entry["_faultline"]?["seq"]?.intValue == Int64(exchange.received.seq))
        #expect(entry["_faultline"]?["role"]?.stringValue == exchange.role)
        #expect(entry["_faultline"]?["lineage"]?.stringValue == exchange.lineage)
        #expect(entry["connection"]?.stringValue == exchange.connection.map { String($0) })
        #expect(entry["startedDateTime"]?.stringValue == exchange.received.wall)
    }
    #expect(all[0]["_faultline"]?["role"] == .string("login"))
    #expect(all[1]["_faultline"]?["lineage"] == .string("L1"))
}

@Test func timingsComeFromTheMonotonicTimesAndSumToTime() throws {
    let entry = try entries(try exportedHAR(handBuiltCapture()))[0]
    let timings = try #require(entry["timings"])
    #expect(timings["send"] == .number(2.5))
    #expect(timings["wait"] == .int(4))
    #expect(timings["receive"] == .number(1.25))
    for phase in ["blocked", "dns", "connect", "ssl"] { #expect(timings[phase] == .int(-1)) }
    #expect(entry["time"] == .number(7.75))
    // The same holds for the recorded capture's real times.
    for entry in try entries(try exportedHAR(try recordedCapture())) {
        let phases = ["blocked", "dns", "connect", "send", "wait", "receive"].compactMap {
            entry["timings"]?[$0]?.doubleValue
        }
        let total = phases.filter { $0 >= 0 }.reduce(0, +)
        #expect(abs(try #require(entry["time"]?.doubleValue) - total) < 1e-9)
        #expect(phases.count == 6)
    }
}

@Test func aPlainTraceHasNoBodiesAndTheHARSaysSo() throws {
    let har = try exportedHAR(try recordedCapture(plainTrace: true))
    #expect(har["log"]?["comment"]?.stringValue?.contains("fingerprints") == true)
    #expect(har["log"]?["_faultline"]?["bodies"] == .bool(false))
    let all = try entries(har)
    let login = all[0]
    #expect(login["request"]?["postData"] == nil)
    #expect(login["request"]?["bodySize"] == .int(44))
    #expect(login["request"]?["comment"]?.stringValue?.contains("not captured") == true)
    let content = try #require(login["response"]?["content"])
    #expect(content["text"] == nil)
    #expect(content["size"] == .int(56))
    #expect(content["comment"]?.stringValue?.contains("not captured") == true)
    #expect(login["request"]?["headers"]?.arrayValue?[2]["value"]?.stringValue?.hasPrefix("Bearer fp:") == true)
    let text = String(decoding: HARExporter.har(from: try recordedCapture(plainTrace: true)), as: UTF8.self)
    for secret in rawSecrets { #expect(!text.contains(secret), "\(secret) is in the HAR") }
}

@Test func aCaptureWithRawSecretsSaysSoInTheLogComment() throws {
    let har = try exportedHAR(try recordedCapture(secrets: .keep))
    #expect(har["log"]?["comment"]?.stringValue?.contains("do not share") == true)
    #expect(har["log"]?["_faultline"]?["secrets"] == .string("kept"))
    #expect(
        try entries(har)[0]["request"]?["headers"]?.arrayValue?[2]["value"] == .string("Bearer tok-RAW-access-0001"))
}

@Test func setCookieAttributesAndDatesAreRead() {
    let cookies = HARCookie.responseCookies([
        ("Set-Cookie", "a=1; path=/x; HTTPONLY; expires=Sun, 06-Nov-94 08:49:37 GMT"), ("Set-Cookie", "no-equals-sign"),
        ("Set-Cookie", "b = 2 ; Max-Age=60; Expires=soon"),
    ])
    #expect(cookies.map(\.name) == ["a", "b"])
    #expect(cookies[0].path == "/x" && cookies[0].httpOnly == true && cookies[0].secure == false)
    #expect(cookies[0].expires == "1994-11-06T08:49:37.000000Z")
    #expect(cookies[1].value == "2" && cookies[1].expires == nil)
    #expect(
        HARCookie.requestCookies([("Cookie", "a=1;b=2; =x; c"), ("cookie", "d=")]).map { "\($0.name)=\($0.value)" } == [
            "a=1", "b=2", "d=",
        ])
}

@Test func jsonTextEscapesWhatWouldBreakALine() {
    let value = JSONValue.fields([
        ("k\"", .string("a\nb\u{2028}c\u{85}d\u{1}é\\")), ("n", .number(.nan)), ("x", .number(0.5)),
    ])
    let text = String(decoding: value.jsonBytes(), as: UTF8.self)
    #expect(text == #"{"k\"":"a\nb\u2028c\u0085d\u0001é\\","n":null,"x":0.5}"#)
    #expect((try? JSONValue(parsing: value.jsonBytes()))?["k\""] == .string("a\nb\u{2028}c\u{85}d\u{1}é\\"))
}
