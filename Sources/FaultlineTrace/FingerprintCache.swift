import Synchronization

/// The fingerprints computed lately, so that a secret seen on every request (a bearer token, a
/// session cookie) costs one HMAC per recorder instead of one per appearance.
///
/// Keyed by a 128-bit hash of the secret, not by the secret: the cache keeps no secret alive in
/// memory after the request that carried it. The two 64-bit halves are SipHash (the standard
/// library's `Hasher`, seeded at random per process) over the secret with different leading bytes,
/// so a wrong hit needs a 128-bit collision between a process-secret-seeded hash of two secrets.
///
/// Bounded as two generations (the way a two-queue cache ages entries): lookups see both, inserts
/// go to the current one, and when it holds `generationSize` entries it becomes the previous one
/// and the old previous one is dropped. A hit in the previous generation is copied forward, so
/// secrets in steady use stay while one-off secrets age out; memory never exceeds two generations.
///
/// Shared by every thread of a recorder; one lock guards both generations.
final class FingerprintCache: Sendable {
    /// The 64 bits of HMAC-SHA256 a fingerprint shows (`"fp:"` and 16 hex digits).
    typealias Code = UInt64

    private struct Key: Hashable {
        let high: UInt64
        let low: UInt64

        init(_ secret: UnsafeRawBufferPointer) {
            var first = Hasher()
            first.combine(UInt8(1))
            first.combine(bytes: secret)
            var second = Hasher()
            second.combine(UInt8(2))
            second.combine(bytes: secret)
            high = UInt64(UInt(bitPattern: first.finalize()))
            low = UInt64(UInt(bitPattern: second.finalize()))
        }
    }

    private struct Generations {
        var current: [Key: Code] = [:]
        var previous: [Key: Code] = [:]
        var hits = 0
        var misses = 0
    }

    /// Entries per generation: a proxy run rarely has more live secrets than this, and at 32 bytes
    /// an entry two full generations stay under a few hundred KiB.
    let generationSize: Int
    private let generations = Mutex(Generations())

    init(generationSize: Int = 4096) {
        precondition(generationSize > 0, "a cache generation must hold at least one entry")
        self.generationSize = generationSize
    }

    /// The code of `secret`, from the cache or from `compute` (run outside the lock, then stored).
    func code(for secret: UnsafeRawBufferPointer, compute: () -> Code) -> Code {
        let key = Key(secret)
        let cached = generations.withLock { generations -> Code? in
            if let code = generations.current[key] {
                generations.hits += 1
                return code
            }
            if let code = generations.previous[key] {
                generations.hits += 1
                Self.insert(code, for: key, into: &generations, size: generationSize)
                return code
            }
            return nil
        }
        if let cached { return cached }
        let code = compute()
        generations.withLock { generations in
            generations.misses += 1
            Self.insert(code, for: key, into: &generations, size: generationSize)
        }
        return code
    }

    private static func insert(_ code: Code, for key: Key, into generations: inout Generations, size: Int) {
        if generations.current.count >= size {
            generations.previous = generations.current
            generations.current = Dictionary(minimumCapacity: size)
        }
        generations.current[key] = code
    }

    /// Lookups answered from the cache, codes computed, and entries held: for tests and benchmarks.
    var statistics: (hits: Int, misses: Int, entries: Int) {
        generations.withLock { ($0.hits, $0.misses, $0.current.count + $0.previous.count) }
    }
}
