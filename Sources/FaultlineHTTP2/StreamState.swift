/// What a connection keeps per open stream: from its first header block (or, client role, from
/// ``HTTP2Connection/startRequest(headers:endStream:)``) until nghttp2's `on_stream_close`.
struct StreamState {
    // MARK: Inbound

    /// The header block being received (RFC 9113 §4.3: HEADERS and its CONTINUATIONs).
    var block: [HTTP2Header] = []
    /// Its size as RFC 9113 §6.5.2 counts it: name + value + 32 per field.
    var blockSize = 0
    /// We refused the block (over the header list limit): nghttp2 drops the rest of it.
    var blockRefused = false
    /// A final (non-1xx) head arrived: any later block is trailers.
    var finalHeadReceived = false
    /// The payload of the DATA frame being received, delivered whole when the frame completes
    /// (so events do not depend on how input was split).
    var frameData: [UInt8] = []

    // MARK: Outbound

    var outbound = OutboundStream()
    /// Our final head (server) or request (client) was submitted.
    var headSubmitted = false
}
