import FaultlineFlow
import FaultlineTrace
import Foundation
import Testing

@testable import FaultlineReplay

@Test func theMintHandsOutOneFreshValuePerRecordedValueAndReadsThemBack() throws {
    var mint = TokenMint()
    let first = mint.fresh(for: "flp.access.L1.1")
    #expect(mint.fresh(for: "flp.access.L1.1") == first)
    let other = mint.fresh(for: "flp.access.L1.2")
    #expect(first != other)
    #expect(first.count == 43 && first.hasPrefix("flr") && first.dropFirst(3).allSatisfy { $0.isLetter || $0.isNumber })
    let next = mint.nextGeneration(for: "flp.access.L1.1")
    #expect(next != first && mint.fresh(for: "flp.access.L1.1") == first)
    let text = Array("Bearer \(first) and \(next) and flrNOTATOKEN".utf8)
    #expect(
        String(decoding: try #require(mint.recordedText(text)), as: UTF8.self)
            == "Bearer flp.access.L1.1 and flp.access.L1.1 and flrNOTATOKEN")
    #expect(mint.presented(in: text).map(\.fresh) == [first, next])
    #expect(mint.recordedText(Array("nothing here".utf8)) == nil)
}

@Test func substitutionReplacesEveryOccurrenceLongestFirst() {
    let out = CredentialSubstitution.replace(["tok", "tok-long"], in: Array("tok-long tok tok-longer".utf8)) {
        "<\($0)>"
    }
    #expect(String(decoding: out, as: UTF8.self) == "<tok-long> <tok> <tok-long>er")
}

@Test func aRecordedResponseIsFramedForHTTP1() {
    // (ReplayLink lives in the server; its framing rules are stated here through the source's output.)
    var recording = CaptureBuilder()
    recording.add(
        "GET", "http://api.test/a",
        responseHeaders: [("Content-Length", "999"), ("Transfer-Encoding", "chunked"), ("X-Kept", "yes")],
        responseBody: "hello")
    let driver = ReplayDriver(recording.capture)
    let flow = driver.send("GET", "http://api.test/a").flow
    #expect(driver.header(flow, "X-Kept") == "yes")
    #expect(driver.outcome(flow)?.body == "hello")
}
