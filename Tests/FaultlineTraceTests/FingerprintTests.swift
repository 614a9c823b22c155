import FaultlineCore
import Testing

@testable import FaultlineTrace

@Test func secretFieldsAreFingerprinted() throws {
    let recorder = try memoryRecorder()
    let (line, event) = try recordOne([.secret("refresh", "RT-0001"), .secret("empty", "")], on: recorder)
    #expect(!line.contains("RT-0001"))
    #expect(event.string("refresh") == recorder.fingerprint("RT-0001"))
    #expect(event.string("empty") == recorder.fingerprint(""))
}

@Test func fingerprintsAreStableWithinARecorderAndDistinctAcrossValues() throws {
    let recorder = try memoryRecorder()
    let first = recorder.fingerprint("token-A")
    #expect(first == recorder.fingerprint("token-A"))
    #expect(first != recorder.fingerprint("token-B"))
    #expect(first.hasPrefix("fp:"))
    #expect(first.count == 19)
    #expect(first.dropFirst(3).allSatisfy { "0123456789abcdef".contains($0) })
    // The same secret seen as a header, a cookie, a query value and a field has one fingerprint,
    // so the checker can follow a credential across places.
    let (_, event) = try recordOne(
        [
            .headers("h", [("Authorization", "Bearer token-A"), ("Cookie", "sid=token-A")]),
            .target("t", "/x?access_token=token-A"), .secret("s", "token-A"),
        ], on: recorder)
    #expect(event.headers("h")?.map(\.value) == ["Bearer \(first)", "sid=\(first)"])
    #expect(event.string("t") == "/x?access_token=\(first)")
    #expect(event.string("s") == first)
}

@Test func twoRecordersFingerprintDifferently() throws {
    let one = try memoryRecorder()
    let two = try memoryRecorder()
    #expect(one.fingerprint("same secret") != two.fingerprint("same secret"))
}

@Test func noRawSecretAppearsAnywhereInATypicalTrace() throws {
    let recorder = try memoryRecorder(RedactionPolicy(extraHeaderNames: ["X-Api-Key"], extraQueryParameters: ["sig"]))
    let secrets = [
        "AT-9f8e7d", "RT-1a2b3c", "CK-445566", "SC-778899", "PW-hunter2", "AK-000111", "SG-222333", "CD-444555",
    ]
    recorder.record(
        .requestReceived, connection: .init(1), flow: .init(1),
        [
            .string("method", "POST"),
            .target("target", "https://user:PW-hunter2@api.example/token?code=CD-444555&sig=SG-222333"),
            .headers(
                "headers",
                [
                    ("Host", "api.example"), ("Authorization", "Bearer AT-9f8e7d"),
                    ("Cookie", "sid=CK-445566; theme=x"),
                    ("X-Api-Key", "AK-000111"), ("Accept", "*/*"),
                ]),
            .secret("refresh_token", "RT-1a2b3c"),
        ])
    recorder.record(
        .responseReceived, connection: .init(1), flow: .init(1),
        [.int("status", 200), .headers("headers", [("Set-Cookie", "sid=SC-778899; Path=/; HttpOnly")])])
    let contents = recorder.memoryContents()
    for secret in secrets {
        #expect(!contents.contains(secret), "\(secret) leaked")
    }
    _ = try TraceReader.read(contents)
}
