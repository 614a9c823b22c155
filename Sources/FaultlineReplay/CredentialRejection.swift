/// From which point a recorded credential is rejected, why, and with which recorded answer.
struct CredentialRejection: Sendable, Equatable {
    /// Why the recorded server stopped accepting the credential.
    enum Cause: String, Sendable {
        /// Nothing in the recording revoked it: it outlived its lifetime.
        case expiry
        /// A logout presenting a credential of its lineage.
        case logout
        /// An RFC 7009 revocation of it, or of its lineage's refresh token (§2.1).
        case revocation
        /// A rotated refresh token presented again (RFC 6749 §10.4, RFC 9700 §4.14.2): the
        /// server revoked the whole lineage.
        case reuse
    }

    let cause: Cause
    /// The recorded exchange whose answer starts the rejection once a run has given it (the
    /// logout, the revocation, the rotation, the reuse); nil for expiry.
    let after: Int?
    /// For expiry: nanoseconds from its issue to the recorded request it was first rejected on.
    let lifetime: UInt64?
    /// The recorded exchange whose answer is the rejection.
    let answer: Int
    /// For expiry: the recorded instant of that request (nanoseconds since the epoch), for
    /// `--clock recorded`; nil when the capture's wall time does not parse.
    var recordedExpiry: Int64? = nil
}
