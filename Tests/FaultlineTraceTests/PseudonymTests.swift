import FaultlineTrace
import Testing

@Test func pseudonymsAreFoundWhereTheyStandAlone() {
    let text = #"Bearer flp.access.L1.1; session=flp.cookie-session.L12.3&x=flp.password.none.1."#
    #expect(Pseudonym.occurrences(in: text) == ["flp.access.L1.1", "flp.cookie-session.L12.3", "flp.password.none.1"])
    #expect(Pseudonym.isPseudonym("flp.refresh.L1.2"))
    #expect(Pseudonym.isPseudonym("flp.id.none.10"))
}

@Test func longerTokensAreNotPseudonyms() {
    #expect(Pseudonym.occurrences(in: "xflp.access.L1.1") == [])
    #expect(Pseudonym.occurrences(in: "flp.access.L1.1x") == [])
    #expect(Pseudonym.occurrences(in: "flp.access.L1.1.2") == [])
    #expect(Pseudonym.occurrences(in: "flp.access.L1") == [])
    #expect(Pseudonym.occurrences(in: "flp.Access.L1.1") == [])
    #expect(!Pseudonym.isPseudonym("flp.access.L1.1 "))
    #expect(!Pseudonym.isPseudonym("at_3JcD3kq"))
    // The prefix of a longer ordinal is not a match of the shorter one.
    #expect(Pseudonym.occurrences(in: "flp.access.L1.12") == ["flp.access.L1.12"])
}

@Test func aPseudonymNamesItsKindAndTheRegistryWritesWhatTheGrammarReads() throws {
    #expect(Pseudonym.kind(of: "flp.refresh.L1.2") == "refresh")
    #expect(Pseudonym.kind(of: "flp.cookie-sid.none.1") == "cookie-sid")
    #expect(Pseudonym.kind(of: "fp:0123456789abcdef") == nil)
    let recorder = try TraceRecorder(output: .memory, flushInterval: .zero, capture: CaptureOptions())
    for (secret, kind) in [("s3cr3t-1", "access"), ("weird name_9", "Cookie Name!"), ("x", "")] {
        #expect(Pseudonym.isPseudonym(recorder.fingerprint(secret, kind: kind)), "\(kind)")
    }
}
