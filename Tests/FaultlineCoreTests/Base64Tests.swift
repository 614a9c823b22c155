import FaultlineCore
import Testing

@Suite struct Base64Tests {
    /// RFC 4648 §10's test vectors.
    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ])
    func standardWithPadding(text: String, encoded: String) {
        #expect(Base64.encoded(Array(text.utf8)) == encoded)
        #expect(Base64.encoded(Array(text.utf8), variant: .urlUnpadded) == String(encoded.filter { $0 != "=" }))
    }

    @Test func theURLAlphabetReplacesPlusAndSlash() {
        #expect(Base64.encoded([0xFB, 0xFF, 0xBF]) == "+/+/")
        #expect(Base64.encoded([0xFB, 0xFF, 0xBF], variant: .urlUnpadded) == "-_-_")
    }
}
