/// How much of a body the proxy reads to decide: a rule's `body` match, the auth profile's body
/// matches and form or JSON credential locations, a revocation's token, a duplicated request's
/// copy, a response JSON edit and the response credentials of profile roles. A larger body
/// streams through unread (the rule does not see it, the credential is not found).
///
/// One number, stated here and in Rules/README.md ("match"), the JSON Schemas' `body`
/// descriptions and Rules/auth-profile.json5; `BodyReadLimitTests` keeps the documents equal to it.
public enum BodyReadLimit {
    /// 256 KiB: a token or form request is a few hundred bytes, and the proxy keeps at most this
    /// much per flow in memory, the size of one connection's backpressure watermark.
    public static let bytes = 256 * 1024

    /// `256 KiB`, as the documents say it.
    public static var text: String { "\(bytes / 1024) KiB" }
}
