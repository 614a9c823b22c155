import Testing

@testable import FaultlineTrace

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
}

/// RFC 4231 §4.2: a short key.
@Test func hmacMatchesRFC4231TestCase1() {
    let hmac = HMACSHA256(key: [UInt8](repeating: 0x0B, count: 20))
    #expect(
        hex(hmac.code(for: Array("Hi There".utf8)))
            == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
}

/// RFC 4231 §4.3: a key shorter than the output.
@Test func hmacMatchesRFC4231TestCase2() {
    let hmac = HMACSHA256(key: Array("Jefe".utf8))
    #expect(
        hex(hmac.code(for: Array("what do ya want for nothing?".utf8)))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
}

/// RFC 4231 §4.7: a key longer than one block, which must be hashed first.
@Test func hmacMatchesRFC4231TestCase6() {
    let hmac = HMACSHA256(key: [UInt8](repeating: 0xAA, count: 131))
    #expect(
        hex(hmac.code(for: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
            == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
}

@Test func hmacInPiecesEqualsHmacInOneGo() {
    let hmac = HMACSHA256(key: Array("Jefe".utf8))
    let message = Array("what do ya want for nothing?".utf8)
    var computation = HMACSHA256.Computation(key: hmac)
    message[..<5].withUnsafeBytes { computation.update($0) }
    message[5...].withUnsafeBytes { computation.update($0) }
    var code = [UInt8](repeating: 0, count: 32)
    code.withUnsafeMutableBytes { computation.finish(into: $0) }
    #expect(code == hmac.code(for: message))
}

@Test func fingerprintIsTheFirst64BitsOfTheHmacInHex() {
    let hmac = HMACSHA256(key: Array("Jefe".utf8))
    let fingerprint = Fingerprinter(hmac: hmac).fingerprint("what do ya want for nothing?")
    #expect(fingerprint == "fp:5bdcc146bf60754e")
}
