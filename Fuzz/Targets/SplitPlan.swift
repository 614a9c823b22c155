/// Where to cut an input into the pieces an incremental parser is fed, derived from the input
/// itself: a rerun of a saved reproducer cuts it at the same places, and a mutation of the
/// input moves the cuts too, so the fuzzer explores split points along with content.
///
/// Pieces are mostly small (1 to 16 bytes: a cut inside every token) and sometimes large, so
/// both byte-at-a-time and bulk paths run.
struct SplitPlan {
    private var state: UInt64

    /// A plan seeded with FNV-1a of `bytes` and `salt` (to draw a different sequence for another purpose).
    init(_ bytes: UnsafeRawBufferPointer, salt: UInt64 = 0) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ salt
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        state = hash
    }

    /// The next number of the splitmix64 sequence.
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xbf58_476d_1ce4_e5b9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94d0_49bb_1331_11eb
        return mixed ^ (mixed >> 31)
    }

    /// A number in `0..<bound` (`bound` > 0).
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// Consecutive ranges covering `0..<count`, none empty.
    mutating func pieces(_ count: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        while start < count {
            let length = below(8) == 0 ? 1 + below(512) : 1 + below(16)
            let end = min(count, start + length)
            ranges.append(start..<end)
            start = end
        }
        return ranges
    }
}
