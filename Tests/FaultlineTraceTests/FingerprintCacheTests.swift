import Testing

@testable import FaultlineTrace

@Test func aSecretSeenAgainIsHashedOnce() {
    let fingerprinter = Fingerprinter(hmac: HMACSHA256(key: Array("Jefe".utf8)))
    let first = fingerprinter.fingerprint("what do ya want for nothing?")
    for _ in 0..<9 { #expect(fingerprinter.fingerprint("what do ya want for nothing?") == first) }
    // The RFC 4231 test case 2 code, so a cached answer is the HMAC's, not just a stable one.
    #expect(first == "fp:5bdcc146bf60754e")
    let statistics = fingerprinter.cache.statistics
    #expect(statistics.misses == 1)
    #expect(statistics.hits == 9)
    #expect(fingerprinter.fingerprint("another secret") != first)
    #expect(fingerprinter.cache.statistics.misses == 2)
}

@Test func theCacheHoldsAtMostTwoGenerations() {
    let cache = FingerprintCache(generationSize: 4)
    var computed = 0
    func code(_ secret: String) -> UInt64 {
        Array(secret.utf8).withUnsafeBytes { bytes in
            cache.code(for: bytes) {
                computed += 1
                return UInt64(secret.count)
            }
        }
    }
    for index in 0..<20 { _ = code("secret-\(index)") }
    #expect(cache.statistics.entries <= 8)
    #expect(computed == 20)
    // The oldest ones aged out: asking again computes again, and gives the same code.
    #expect(code("secret-0") == UInt64("secret-0".count))
    #expect(computed == 21)
}

@Test func aSecretInSteadyUseStaysWhileOneOffsAgeOut() {
    let cache = FingerprintCache(generationSize: 4)
    var computed: [String] = []
    func use(_ secret: String) {
        Array(secret.utf8).withUnsafeBytes { bytes in
            _ = cache.code(for: bytes) {
                computed.append(secret)
                return 1
            }
        }
    }
    for index in 0..<40 {
        use("bearer-in-use")
        use("one-off-\(index)")
    }
    // Every other lookup is the token in use; a hit in the previous generation copies it forward,
    // so it is hashed once while 40 one-off secrets pass through generations of 4.
    #expect(computed.filter { $0 == "bearer-in-use" }.count == 1)
    #expect(computed.count == 41)
}

@Test func secretsThatDifferOnlyInLengthOrOneByteHaveTheirOwnEntries() {
    let fingerprinter = Fingerprinter(hmac: HMACSHA256(key: Array("key".utf8)))
    let values = ["", "a", "aa", "ab", "ba", "Bearer abc", "Bearer abd"]
    let fingerprints = values.map { fingerprinter.fingerprint($0) }
    #expect(Set(fingerprints).count == values.count)
    // Asked again in another order, each still gets its own.
    for (value, fingerprint) in zip(values, fingerprints).reversed() {
        #expect(fingerprinter.fingerprint(value) == fingerprint)
    }
}
