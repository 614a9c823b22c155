/// A deterministic generator: xoshiro256** (Blackman & Vigna), its state filled from the seed by
/// SplitMix64 as the authors recommend. Same seed, same sequence, on every platform (the standard
/// library's generator is neither seedable nor stable). Behind the rule files' `probability` and
/// exploration's strategies.
package struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    package init(seed: UInt64) {
        var mixer = seed
        s0 = Self.splitMix(&mixer)
        s1 = Self.splitMix(&mixer)
        s2 = Self.splitMix(&mixer)
        s3 = Self.splitMix(&mixer)
    }

    package mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, 45)
        return result
    }

    /// One Bernoulli draw: true with `probability` (0 never, 1 always), from 53 random bits.
    package mutating func draw(_ probability: Double) -> Bool {
        let unit = Double(next() >> 11) * 0x1p-53  // uniform in [0, 1)
        return unit < probability
    }

    private func rotateLeft(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    /// One SplitMix64 step: mixes `state` forward and returns 64 well-spread bits (also how a
    /// seed is derived from another, for a lineage or a schedule).
    package static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
