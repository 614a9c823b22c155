import FaultlineCore
import Synchronization

/// Names every secret of one capture: `flp.KIND.LINEAGE.N`, the N-th secret of that kind seen in
/// that lineage (`flp.access.L1.2` is lineage L1's second access token, `flp.password.none.1` the
/// first password that belongs to no lineage).
///
/// The name is chosen when the secret is first written and never changes, so the same secret has
/// the same pseudonym everywhere in the capture and different secrets have different ones. It is
/// made of letters, digits and `.` only, so it stays valid where the secret was: a cookie value
/// (RFC 6265 §4.1.1), a Bearer token68 (RFC 6750 §2.1), a query or form value, a JSON string.
///
/// It also remembers the raw values it named (in memory only, never written) so that a body can
/// be scrubbed of a known secret wherever it appears in it, not only at the places the redaction
/// policy names. Shared by every thread of a recorder: one lock.
final class PseudonymRegistry: Sendable {
    /// Secrets shorter than this are not searched for in free text: too likely to match by chance.
    static let minimumScrubbedLength = 8
    static let prefix = "flp."

    private struct State {
        var names: [HMACKey: String] = [:]
        /// Next ordinal per `KIND.LINEAGE`.
        var counters: [String: Int] = [:]
        /// Raw secrets worth scrubbing from free text, by their first 8 bytes.
        var scrubbable: [UInt64: [(secret: [UInt8], name: String)]] = [:]
    }

    /// The first 16 bytes of the secret's HMAC under the recorder's key: a key that holds no raw
    /// secret, with a collision chance of 2^-64 per pair.
    private struct HMACKey: Hashable {
        let high: UInt64
        let low: UInt64
    }

    private let hmac: HMACSHA256
    private let state = Mutex(State())

    init(hmac: HMACSHA256) {
        self.hmac = hmac
    }

    /// The pseudonym of `secret`, named now from `kind` and `lineage` if it has none yet.
    func pseudonym(for secret: UnsafeBufferPointer<UInt8>, kind: SecretKind, lineage: String?) -> String {
        let key = self.key(for: secret)
        if let known = state.withLock({ $0.names[key] }) { return known }
        let kindText = kind.text
        let lineageText = lineage.map(Self.sanitizedLineage) ?? "none"
        return state.withLock { state in
            if let known = state.names[key] { return known }
            let counter = kindText + "." + lineageText
            let ordinal = (state.counters[counter] ?? 0) + 1
            state.counters[counter] = ordinal
            let name = Self.prefix + counter + "." + String(ordinal)
            state.names[key] = name
            if secret.count >= Self.minimumScrubbedLength {
                state.scrubbable[Self.prefixWord(secret, at: 0), default: []].append((Array(secret), name))
            }
            return name
        }
    }

    /// `bytes` with every known secret (of at least `minimumScrubbedLength` bytes) replaced by its
    /// pseudonym; nil when none occurs, so the caller keeps its own bytes.
    func scrubbed(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard bytes.count >= Self.minimumScrubbedLength else { return nil }
        return state.withLock { state -> [UInt8]? in
            guard !state.scrubbable.isEmpty else { return nil }
            return bytes.replacingRuns(minimumLength: Self.minimumScrubbedLength) { index in
                guard let candidates = state.scrubbable[Self.prefixWord(bytes, at: index)],
                    let match = candidates.first(where: { Self.occurs($0.secret, in: bytes, at: index) })
                else { return nil }
                return (match.secret.count, match.name)
            }
        }
    }

    private func key(for secret: UnsafeBufferPointer<UInt8>) -> HMACKey {
        var computation = HMACSHA256.Computation(key: hmac)
        computation.update(UnsafeRawBufferPointer(secret))
        return withUnsafeTemporaryAllocation(byteCount: HMACSHA256.codeByteCount, alignment: 8) { code in
            computation.finish(into: code)
            return HMACKey(
                high: code.load(fromByteOffset: 0, as: UInt64.self), low: code.load(fromByteOffset: 8, as: UInt64.self))
        }
    }

    private static func prefixWord(_ bytes: some Collection<UInt8>, at offset: Int) -> UInt64 {
        var word: UInt64 = 0
        var index = bytes.index(bytes.startIndex, offsetBy: offset)
        for _ in 0..<minimumScrubbedLength {
            word = word << 8 | UInt64(bytes[index])
            index = bytes.index(after: index)
        }
        return word
    }

    private static func occurs(_ secret: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        guard offset + secret.count <= bytes.count else { return false }
        for index in secret.indices where bytes[offset + index] != secret[index] { return false }
        return true
    }

    /// `L12` stays `L12`; anything else is reduced to the characters a pseudonym allows.
    private static func sanitizedLineage(_ lineage: String) -> String {
        let kept = lineage.unicodeScalars.filter {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))
        }
        return kept.isEmpty ? "none" : String(String.UnicodeScalarView(kept))
    }
}
