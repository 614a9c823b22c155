/// The 64-bit FNV-1a hash (Fowler–Noll–Vo, draft-eastlake-fnv): a cheap, well-spread digest that
/// tells bodies, or orders of steps, apart. Not cryptographic: never for secrets.
package enum FNV1a {
    private static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01B3

    /// The hash of `bytes`.
    package static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash = offsetBasis
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* prime
        }
        return hash
    }

    /// The hash as 16 lowercase hex digits.
    package static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let hex = String(hash(bytes), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
