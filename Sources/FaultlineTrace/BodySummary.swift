/// What a trace records of a message body: its length and a keyed fingerprint of its bytes.
///
/// Two bodies with equal bytes in one trace have equal summaries, which is what the contract
/// checker needs (a retried request carries its full body again) without writing the body.
public struct BodySummary: Sendable, Equatable {
    /// Number of body bytes.
    public let length: Int64
    /// `"fp:"` plus 16 hex digits of the HMAC-SHA256 of the bytes under the trace's key.
    public let fingerprint: String

    /// Makes a summary; the recorder's `BodyDigest` makes them from bytes, the reader from a trace.
    public init(length: Int64, fingerprint: String) {
        self.length = length
        self.fingerprint = fingerprint
    }
}
