import Testing

@testable import FaultlineReplay

@Test func aJWTIsMintedWithItsSigningInputAndReadBackWhole() throws {
    let recorded = jwt(#"{"sub":"ann","exp":1796173200}"#)
    let input = try #require(AnswerTimeShifter.movedSigningInput(of: recorded, by: day))
    var mint = TokenMint()
    let fresh = mint.fresh(for: recorded, signingInput: input)
    #expect(fresh.hasPrefix(input) && fresh.dropFirst(input.count).hasPrefix("flr") && fresh.count == input.count + 43)
    // One fresh value per recorded value for the run: a later answer's input does not change it.
    #expect(mint.fresh(for: recorded, signingInput: "other.input.") == fresh)
    let next = mint.nextGeneration(for: recorded, signingInput: input)
    #expect(next != fresh && next.hasPrefix(input))

    let text = Array("Authorization: Bearer \(fresh)\nbody=\(next)&x=flr".utf8)
    let back = String(decoding: try #require(mint.recordedText(text)), as: UTF8.self)
    #expect(back == "Authorization: Bearer \(recorded)\nbody=\(recorded)&x=flr")
    #expect(mint.presented(in: text).map(\.recorded) == [recorded, recorded])
    // An opaque token is minted as before.
    let opaque = mint.fresh(for: "flp.refresh.L1.1")
    #expect(opaque.hasPrefix("flr") && opaque.count == 43)
    #expect(mint.recordedText(Array(opaque.utf8)).map { String(decoding: $0, as: UTF8.self) } == "flp.refresh.L1.1")
}
