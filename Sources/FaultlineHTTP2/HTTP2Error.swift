/// Something the caller asked of an ``HTTP2Connection`` (or of the ``HTTP2Headers`` helpers)
/// that cannot be done. What the peer does wrong is never thrown: it arrives as an
/// ``HTTP2Event`` (`.streamError`, `.connectionError`).
///
/// Like `HTTP1Error` and `TLSError`: a struct with a stable `code` for the trace and a sentence
/// a person can act on, so new codes do not break callers' switches. Compare `code`s.
public struct HTTP2Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable machine identifier, e.g. `"no-new-streams"`. The codes in use are the
    /// `static let` names below.
    public let code: String
    /// One human sentence: what failed and why.
    public let message: String

    /// An error with one of the codes below (or a caller's own) and its sentence.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }

    // MARK: Codes

    /// A ``HTTP2Connection/Limits`` value is outside what HTTP/2 allows (RFC 9113 §6.5.2, §6.9).
    public static let invalidLimits = "invalid-limits"
    /// nghttp2 could not create the session (out of memory).
    public static let sessionUnavailable = "session-unavailable"
    /// No new stream can be opened: GOAWAY was sent or received (RFC 9113 §6.8), the stream IDs
    /// are spent (§5.1.1), or the connection failed.
    public static let noNewStreams = "no-new-streams"
    /// As many streams are open as the peer's SETTINGS_MAX_CONCURRENT_STREAMS allows (§5.1.2);
    /// retry when a stream closes.
    public static let concurrencyLimit = "concurrency-limit"
    /// The call belongs to the other role (a server cannot start requests).
    public static let wrongRole = "wrong-role"
    /// nghttp2 refused the submission (the message says why).
    public static let submissionFailed = "submission-failed"
    /// A request's pseudo-header fields break RFC 9113 §8.3.1.
    public static let malformedRequestHead = "malformed-request-head"
    /// A response's `:status` is missing or not three digits (RFC 9113 §8.3.2).
    public static let malformedResponseHead = "malformed-response-head"
}
