import FaultlineCore
import Foundation
import Testing

@testable import FaultlineTrace

/// A capture recorder writing to memory.
private func captureRecorder(
    _ secrets: CaptureOptions.Secrets = .pseudonyms, bodyLimit: Int = 1 << 20, policy: RedactionPolicy = .default
) throws -> TraceRecorder {
    try TraceRecorder(
        output: .memory, redaction: policy, flushInterval: .zero,
        capture: CaptureOptions(secrets: secrets, bodyLimit: bodyLimit))
}

private func content(_ text: String, type: String? = "application/json", length: Int64? = nil) -> CapturedBody {
    CapturedBody(bytes: Array(text.utf8), length: length ?? Int64(text.utf8.count), contentType: type)
}

@Test func theHeaderSaysTheTraceIsACaptureAndHowItWritesSecrets() throws {
    let recorder = try captureRecorder(bodyLimit: 4096)
    let header = try TraceReader.parseHeader(line: String(recorder.memoryContents().split(separator: "\n")[0]))
    #expect(header.isCapture)
    #expect(header.captureSecrets == "pseudonyms")
    #expect(header.attributes["capture"]?.objectValue?["body_limit"]?.intValue == 4096)
    let plain = try memoryRecorder()
    #expect(try !TraceReader.parseHeader(line: String(plain.memoryContents().split(separator: "\n")[0])).isCapture)
}

@Test func aSecretHasOnePseudonymWhereverItTravelsAndNamesItsKindAndLineage() throws {
    let recorder = try captureRecorder()
    let token = "eyJhbGciOiJIUzI1NiJ9.access-AAAA"
    let (_, received) = try recordOne(
        [
            .string("lineage", "L3"),
            .headers(
                "headers", [("Authorization", "Bearer \(token)"), ("Cookie", "sid=cookie-value-1234; theme=dark")]),
            .target("url", "http://api.test/v1/me?access_token=\(token)&page=2"),
        ], on: recorder)
    let headers = try #require(received.headers("headers"))
    #expect(headers[0].value == "Bearer flp.access.L3.1")
    #expect(headers[1].value == "sid=flp.cookie-sid.L3.1; theme=flp.cookie-theme.L3.1")
    #expect(received.string("url") == "http://api.test/v1/me?access_token=flp.access.L3.1&page=2")
    // In a body, in another event without a lineage: the same name, chosen the first time.
    let (line, _) = try recordOne(
        [.content("content", content("{\"access_token\":\"\(token)\",\"n\":1}"))], on: recorder)
    #expect(line.contains("{\\\"access_token\\\":\\\"flp.access.L3.1\\\",\\\"n\\\":1}"))
    // The tracker's name for a credential agrees with the writer's.
    #expect(recorder.fingerprint(token, kind: "access") == "flp.access.L3.1")
    // A different secret of the same kind and lineage is the second one.
    let (_, next) = try recordOne(
        [.string("lineage", "L3"), .headers("headers", [("Authorization", "Bearer other-token-BBBB")])], on: recorder)
    #expect(next.headers("headers")?[0].value == "Bearer flp.access.L3.2")
    #expect(!recorder.memoryContents().contains(token))
    #expect(!recorder.memoryContents().contains("cookie-value-1234"))
}

@Test func jsonAndFormBodiesHaveTheirSecretFieldsReplacedAndTheRestKept() throws {
    let recorder = try captureRecorder(policy: RedactionPolicy(extraBodyFields: ["sessionKey"]))
    let json =
        #"{ "user": {"name": "ann", "password": "pa\u0073s-word-1"}, "sessionKey": "sk-0123456789", "n": [1, 2.5e3, true, null], "code": 4711 }"#
    let (_, event) = try recordOne([.content("content", content(json))], on: recorder)
    let data = try #require(event.object("content")?["data"]?.stringValue)
    #expect(
        data
            == #"{ "user": {"name": "ann", "password": "flp.password.none.1"}, "sessionKey": "flp.sessionkey.none.1", "n": [1, 2.5e3, true, null], "code": 4711 }"#
    )
    let form = "grant_type=password&username=ann&password=pa%73s-word-1&client_secret=s3cr3t+value"
    let (_, formEvent) = try recordOne(
        [.content("content", content(form, type: "application/x-www-form-urlencoded"))], on: recorder)
    // The escaped and the plain spelling of one password are one secret.
    #expect(
        formEvent.object("content")?["data"]?.stringValue
            == "grant_type=password&username=ann&password=flp.password.none.1&client_secret=flp.client-secret.none.1")
}

@Test func aKnownSecretIsScrubbedFromAnyBodyEvenWhereNoFieldNamesIt() throws {
    let recorder = try captureRecorder()
    _ = try recordOne([.headers("headers", [("Authorization", "Bearer tok-ABCDEFGHIJ")])], on: recorder)
    let html = "<p>your token is tok-ABCDEFGHIJ, keep it</p>"
    let (_, event) = try recordOne([.content("content", content(html, type: "text/html"))], on: recorder)
    #expect(event.object("content")?["data"]?.stringValue == "<p>your token is flp.access.none.1, keep it</p>")
    // Malformed JSON is treated as text: the known secret still goes.
    let (_, broken) = try recordOne(
        [.content("content", content("{\"t\": \"tok-ABCDEFGHIJ\"", type: "application/json"))], on: recorder)
    #expect(broken.object("content")?["data"]?.stringValue == "{\"t\": \"flp.access.none.1\"")
}

@Test func bodiesThatAreNotTextAreBase64AndCutBodiesSaySo() throws {
    let recorder = try captureRecorder()
    let binary: [UInt8] = [0xFF, 0x00, 0x01, 0xC3]
    let (_, event) = try recordOne(
        [.content("content", CapturedBody(bytes: binary, length: 4, contentType: "application/octet-stream"))],
        on: recorder)
    let object = try #require(event.object("content"))
    #expect(object["encoding"]?.stringValue == "base64")
    #expect(object["data"]?.stringValue == Data(binary).base64EncodedString())
    #expect(object["truncated"] == nil)
    // "é" is C3 A9: a cut after C3 keeps the whole characters as text.
    let cut = CapturedBody(bytes: Array("caf".utf8) + [0xC3], length: 10, contentType: "text/plain")
    let (_, cutEvent) = try recordOne([.content("content", cut)], on: recorder)
    #expect(cutEvent.object("content")?["encoding"]?.stringValue == "utf8")
    #expect(cutEvent.object("content")?["data"]?.stringValue == "caf")
    #expect(cutEvent.object("content")?["truncated"]?.boolValue == true)
    #expect(cutEvent.object("content")?["length"]?.intValue == 10)
}

@Test func capturedBodyBufferKeepsTheLimitAndCountsTheRest() {
    var buffer = CapturedBodyBuffer(limit: 5)
    buffer.append(Array("abc".utf8))
    buffer.append(Array("defgh".utf8))
    let body = buffer.body(contentType: nil)
    #expect(body.bytes == Array("abcde".utf8))
    #expect(body.length == 8)
    #expect(body.truncated)
}

@Test func keepingSecretsWritesThemRawInAPrivateFile() throws {
    let directory = try temporaryDirectory()
    let path = directory.appendingPathComponent("capture.jsonl").path
    // An existing, world-readable file must not stay readable.
    _ = FileManager.default.createFile(atPath: path, contents: Data("old".utf8), attributes: [.posixPermissions: 0o644])
    let recorder = try TraceRecorder(
        output: .file(path: path), flushInterval: .zero, capture: CaptureOptions(secrets: .keep))
    recorder.record(
        .mark,
        [
            .headers("headers", [("Authorization", "Bearer raw-token-1")]),
            .content("content", content("{\"password\":\"pw-1\"}")),
        ])
    recorder.close()
    let text = try String(contentsOfFile: path, encoding: .utf8)
    #expect(text.contains("\"secrets\":\"kept\""))
    #expect(text.contains("Bearer raw-token-1"))
    #expect(text.contains(#"{\"password\":\"pw-1\"}"#))
    let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    #expect(mode == 0o600)
}

@Test func aPlainTraceStillFingerprints() throws {
    let recorder = try memoryRecorder()
    #expect(try redactedHeader("Authorization", "Bearer tok-1", on: recorder).hasPrefix("Bearer fp:"))
    #expect(recorder.fingerprint("tok-1", kind: "access").hasPrefix("fp:"))
}

@Test func utf8IsValidatedAsTheStandardSays() {
    func valid(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBufferPointer { UTF8Validation.isValid($0) } }
    for text in ["", "plain", "café", "日本語", "🎉 emoji", "\u{10FFFF}"] {
        #expect(valid(Array(text.utf8)), "\(text)")
        #expect(valid(Array(text.utf8)) == (String(validating: Array(text.utf8), as: UTF8.self) != nil))
    }
    // Overlong, surrogate, past U+10FFFF, stray continuation, cut sequence.
    for bad: [UInt8] in [
        [0xC0, 0x80], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80], [0xE2, 0x82], [0xFF],
    ] {
        #expect(!valid(bad), "\(bad)")
        #expect(String(validating: bad, as: UTF8.self) == nil)
    }
}
