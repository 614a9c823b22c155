/// Turns secrets into the trace's keyed fingerprints: `"fp:"` plus the first 16 hex digits
/// (64 bits) of HMAC-SHA256(key, secret).
///
/// The key is random per recorder and never written, so fingerprints are stable within one trace
/// (equal secrets compare equal) but cannot be compared across traces or brute-forced offline
/// from the trace alone. Each distinct secret is hashed once: later appearances come from a
/// bounded cache (`FingerprintCache`). Shared by every thread of a recorder.
struct Fingerprinter: Sendable {
    let hmac: HMACSHA256
    let cache = FingerprintCache()

    /// The name written in the trace header's `fingerprint` field.
    static let schemeName = "hmac-sha256-64"

    /// Appends the fingerprint of `secret` (no quotes) to `output`.
    func append(_ secret: UnsafeBufferPointer<UInt8>, to output: inout JSONOutput) {
        let bytes = UnsafeRawBufferPointer(secret)
        let code = cache.code(for: bytes) {
            var computation = HMACSHA256.Computation(key: hmac)
            computation.update(bytes)
            return computation.finishFingerprint()
        }
        output.appendFingerprint(code)
    }

    /// Appends the fingerprint of the UTF-8 bytes of `secret` (no quotes) to `output`.
    func append(_ secret: String, to output: inout JSONOutput) {
        withUTF8(of: secret) { append($0, to: &output) }
    }

    /// The fingerprint of `secret` as a String.
    func fingerprint(_ secret: String) -> String {
        var output = JSONOutput(capacity: 19)
        append(secret, to: &output)
        return output.text
    }
}
