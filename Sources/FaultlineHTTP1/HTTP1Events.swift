/// What ``HTTP1RequestDecoder/nextEvent()`` found next in the client's bytes.
///
/// Each message is `.head`, zero or more `.body`, then `.end`.
public enum HTTP1RequestEvent: Sendable, Equatable {
    /// A complete request head; ``HTTP1RequestDecoder/framing`` now tells how its body is delimited.
    case head(HTTPRequestHead)
    /// Some body bytes (never empty), with chunked framing removed. The slice shares the decoder's
    /// buffer: its indices are not zero-based, and holding it across the next `receive` costs a copy.
    case body(ArraySlice<UInt8>)
    /// The message is complete; `trailers` holds the chunked trailer fields, or nil when there were none.
    case end(trailers: HTTPHeaders?)
}

/// What ``HTTP1ResponseDecoder/nextEvent()`` found next in the upstream's bytes.
///
/// Each response is any number of `.interim`, then `.head`, zero or more `.body`, then `.end`.
public enum HTTP1ResponseEvent: Sendable, Equatable {
    /// A 1xx response other than 101 (RFC 9110 §15.2); the final response to the same request follows.
    case interim(HTTPResponseHead)
    /// A final response head (or 101); ``HTTP1ResponseDecoder/framing`` now tells how its body is delimited.
    case head(HTTPResponseHead)
    /// Some body bytes (never empty), with chunked framing removed; see ``HTTP1RequestEvent/body(_:)``.
    case body(ArraySlice<UInt8>)
    /// The response is complete; `trailers` holds the chunked trailer fields, or nil when there were none.
    case end(trailers: HTTPHeaders?)
}
