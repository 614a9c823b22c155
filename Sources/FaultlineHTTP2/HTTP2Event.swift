public import FaultlineCore

/// What an ``HTTP2Connection`` found, in order: returned by ``HTTP2Connection/receive(_:)`` and
/// ``HTTP2Connection/takeEvents()``.
///
/// Events do not depend on how the bytes were split between `receive` calls: a header block is
/// one event once it is complete (CONTINUATION frames included), the data of a DATA frame is one
/// event once the frame is complete.
public enum HTTP2Event: Sendable, Equatable {
    /// A stream's head: a request head (server role), a response head (client role; 1xx
    /// informational heads included, each its own event before the final one, RFC 9113 §8.1).
    /// `endStream`: the peer sends nothing more on the stream (no body).
    case headers(stream: Int32, headers: [HTTP2Header], endStream: Bool)
    /// A header block after the stream's final head: trailers (RFC 9113 §8.1). They always end
    /// the stream (nghttp2 refuses trailers without END_STREAM).
    case trailers(stream: Int32, headers: [HTTP2Header])
    /// The payload of one DATA frame (padding removed). Flow control is manual: once these bytes
    /// have been handed on, call ``HTTP2Connection/consumed(stream:bytes:)``.
    case data(stream: Int32, bytes: [UInt8], endStream: Bool)
    /// The peer sent RST_STREAM (RFC 9113 §6.4). `.streamClosed` follows.
    case streamReset(stream: Int32, code: HTTP2ErrorCode)
    /// nghttp2 closed the stream (its `on_stream_close`): after END_STREAM both ways, after a
    /// reset either way, or when a GOAWAY ended it. The stream's ID is now unknown to the
    /// connection; its last event.
    case streamClosed(stream: Int32, code: HTTP2ErrorCode)
    /// We refused the peer's stream and reset it (RST_STREAM is queued): its header list was over
    /// ``HTTP2Connection/Limits/maxHeaderListSize``, it broke nghttp2's HTTP messaging checks
    /// (pseudo-headers, connection-specific fields, content-length against DATA, RFC 9113
    /// §8.1.1), it was over the concurrency limit (REFUSED_STREAM), or one of our own header
    /// blocks could not be sent. `.streamClosed` follows for a stream that had been opened.
    case streamError(stream: Int32, reason: String)
    /// The stream's queued outbound data has all been taken by nghttp2 (the stream did not end):
    /// the caller may read more from the stream's source and ``HTTP2Connection/sendData(stream:_:endStream:)`` it.
    case windowAvailable(stream: Int32)
    /// The peer's SETTINGS parameters, in the order sent (for the trace; nghttp2 applies and
    /// acknowledges them itself, RFC 9113 §6.5.3).
    case settings([HTTP2Setting])
    /// The peer sent GOAWAY (RFC 9113 §6.8): streams above `lastStreamID` that we started were not
    /// processed (they close with REFUSED_STREAM and may be retried elsewhere); no new streams.
    case goAway(lastStreamID: Int32, code: HTTP2ErrorCode, debug: String)
    /// The connection is over because of the peer: nghttp2 (or, for errors it cannot recover
    /// from, this connection) queued a GOAWAY with `code` — take it with
    /// ``HTTP2Connection/takeOutput()``, write it, then close the socket once
    /// ``HTTP2Connection/isFinished``. `reason` is nghttp2's text (no field values).
    /// No new stream is accepted. Usually nothing more is read either and no further events
    /// come for open streams (treat them as failed); the exception is nghttp2's rapid-reset
    /// GOAWAY (INTERNAL_ERROR), after which streams up to its last stream ID may still finish
    /// before ``HTTP2Connection/isFinished`` (the caller may as well close).
    case connectionError(code: HTTP2ErrorCode, reason: String)
}
