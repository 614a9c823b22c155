import Testing

@testable import FaultlineCore

/// The one JSON escape decoder (RFC 8259 §7) of the trace parser, the body redactor and the
/// rules' body reader: each escape, surrogate pairs, lone surrogates in both modes, and input cut
/// at every byte.
struct JSONEscapeTests {
    /// Decodes the escape at the start of `text`: the UTF-8 written and where reading stopped, or
    /// the failure.
    static func decode(_ text: String, _ mode: JSONEscape.LoneSurrogates = .refuse) -> (String, Int)? {
        let bytes = Array(text.utf8)
        var index = 0
        var output: [UInt8] = []
        let failure = bytes.withUnsafeBufferPointer {
            JSONEscape.decode($0, at: &index, into: &output, loneSurrogates: mode)
        }
        return failure == nil ? (String(decoding: output, as: UTF8.self), index) : nil
    }

    static func failure(_ text: String, _ mode: JSONEscape.LoneSurrogates = .refuse) -> JSONEscape.Failure? {
        let bytes = Array(text.utf8)
        var index = 0
        var output: [UInt8] = []
        return bytes.withUnsafeBufferPointer { JSONEscape.decode($0, at: &index, into: &output, loneSurrogates: mode) }
    }

    @Test(arguments: [
        (#"\""#, "\""), (#"\\"#, "\\"), (#"\/"#, "/"), (#"\b"#, "\u{08}"), (#"\f"#, "\u{0C}"), (#"\n"#, "\n"),
        (#"\r"#, "\r"), (#"\t"#, "\t"), (#"\u0041"#, "A"), (#"\u00e9"#, "é"), (#"\u20AC"#, "€"),
    ])
    func eachEscapeDecodes(_ escape: String, _ expected: String) {
        let decoded = Self.decode(escape + "rest")
        #expect(decoded?.0 == expected)
        #expect(decoded?.1 == escape.utf8.count, "reading stops right after the escape")
    }

    @Test func aSurrogatePairIsOneCharacter() {
        #expect(Self.decode(#"\uD83D\uDE00"#)?.0 == "😀")
        #expect(Self.decode(#"\ud83d\ude00x"#)?.1 == 12)
    }

    @Test func loneSurrogatesAreRefusedOrReplaced() {
        let lone: [(String, JSONEscape.Failure)] = [
            (#"\uD83D"#, .unpairedSurrogate(0xD83D, followedBy: nil)),
            (#"\uD83Dx"#, .unpairedSurrogate(0xD83D, followedBy: nil)),
            (#"\uDE00"#, .unpairedSurrogate(0xDE00, followedBy: nil)),
            (#"\uD83D\u0041"#, .unpairedSurrogate(0xD83D, followedBy: 0x41)),
        ]
        for (text, failure) in lone {
            #expect(Self.failure(text) == failure, "\(text)")
            #expect(Self.decode(text, .replace)?.0 == "\u{FFFD}", "\(text)")
        }
        // Replaced, a high surrogate leaves what follows it to be read on its own.
        #expect(Self.decode(#"\uD83D\u0041"#, .replace)?.1 == 6)
    }

    @Test func badInputNamesWhatWentWrong() {
        #expect(Self.failure(#"\q"#) == .unknownLetter(UInt8(ascii: "q"), at: 1))
        #expect(Self.failure(#"\u00G1"#) == .notHex(at: 4))
        #expect(Self.failure(#"\uD83D\u12G4"#) == .notHex(at: 10))
        #expect(Self.decode(#"\uD83D\u12G4"#, .replace)?.0 == "\u{FFFD}", "the bad escape after it fails when read")
    }

    /// Every proper prefix of an escape is truncated input, never a character.
    @Test(arguments: [#"\n"#, #"\u00e9"#, #"\uD83D\uDE00"#])
    func everyCutIsTruncated(_ escape: String) {
        let bytes = Array(escape.utf8)
        for cut in 1..<bytes.count {
            let prefix = String(decoding: bytes[..<cut], as: UTF8.self)
            let failure = Self.failure(prefix)
            if case .truncated = failure { continue }
            // A high surrogate cut before its partner's "\u" is whole has no partner.
            #expect(
                failure == .unpairedSurrogate(0xD83D, followedBy: nil) && (cut == 6 || cut == 7),
                "cut at \(cut): \(String(describing: failure))"
            )
        }
    }
}
