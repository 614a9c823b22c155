import Testing

@testable import FaultlineTrace

private func summary(_ chunks: [[UInt8]], _ recorder: TraceRecorder) -> BodySummary {
    let digest = recorder.makeBodyDigest()
    for chunk in chunks { chunk.withUnsafeBytes { digest.update($0) } }
    return digest.finish()
}

@Test func bodySummaryDoesNotDependOnHowTheBodyIsSplit() throws {
    let recorder = try memoryRecorder()
    let body = Array("{\"grant_type\":\"refresh_token\",\"refresh_token\":\"RT-42\"}".utf8)
    let whole = summary([body], recorder)
    #expect(whole.length == Int64(body.count))
    for split in 0...body.count {
        #expect(summary([Array(body[..<split]), Array(body[split...])], recorder) == whole)
    }
    #expect(summary(body.map { [$0] }, recorder) == whole)
    #expect(summary([[], body, []], recorder) == whole)
    // The same key as field fingerprints: a body equals a secret with the same bytes.
    #expect(whole.fingerprint == recorder.fingerprint(String(decoding: body, as: UTF8.self)))
}

@Test func differentBodiesGetDifferentFingerprints() throws {
    let recorder = try memoryRecorder()
    let one = summary([Array("amount=10".utf8)], recorder)
    let two = summary([Array("amount=11".utf8)], recorder)
    #expect(one.length == two.length)
    #expect(one.fingerprint != two.fingerprint)
    #expect(summary([], recorder).length == 0)
    #expect(summary([], recorder).fingerprint == recorder.fingerprint(""))
    // Empty chunks start nothing: the body is still the empty one, whose summary is worked out once.
    #expect(summary([[], []], recorder) == summary([], recorder))
    #expect(one != summary([Array("amount=10".utf8)], try memoryRecorder()))
}

@Test func finishTwiceReturnsTheSameSummary() throws {
    let digest = try memoryRecorder().makeBodyDigest()
    digest.update(Array("abc".utf8))
    #expect(digest.finish() == digest.finish())
    let empty = try memoryRecorder().makeBodyDigest()
    #expect(empty.finish() == empty.finish())
}

@Test func bodySummaryIsWrittenAndReadBack() throws {
    let recorder = try memoryRecorder()
    let body = summary([Array("payload".utf8)], recorder)
    let (line, event) = try recordOne([.body("body", body)], on: recorder)
    #expect(line.contains("\"body\":{\"length\":7,\"fp\":\"\(body.fingerprint)\"}"))
    #expect(event.body("body") == body)
}
