import FaultlineCore

/// One stream's outbound side: the bytes ``HTTP2Connection/sendData(stream:_:endStream:)``
/// queued and nghttp2's data provider has not taken yet, and how the stream is to end.
struct OutboundStream {
    /// Queued chunks; `chunks[first...]` hold the unread bytes (a consumed prefix is dropped
    /// lazily, so reading is O(bytes) without shifting the array on every call).
    private var chunks: [ArraySlice<UInt8>] = []
    private var first = 0
    /// Bytes queued and not taken yet.
    private(set) var count = 0

    /// The caller ended the stream (`endStream`, or trailers): after the queue, EOF.
    var endRequested = false
    /// Trailers to send after the queue, ending the stream (RFC 9113 §8.1).
    var trailers: [HTTP2Header]?
    /// RST_STREAM to send after the queue, instead of an end (`reset(afterQueuedData: true)`).
    var resetCode: HTTP2ErrorCode?
    /// HEADERS went to nghttp2 with our data provider: the provider reads this queue.
    var providerAttached = false
    /// The provider last answered NGHTTP2_ERR_DEFERRED (the queue was empty): more data must
    /// `nghttp2_session_resume_data`.
    var deferred = false
    /// The provider gave nghttp2 EOF, or the head ended the stream: nothing more can be sent.
    var finished = false

    var isEmpty: Bool { count == 0 }

    mutating func append(_ bytes: ArraySlice<UInt8>) {
        guard !bytes.isEmpty else { return }
        chunks.append(bytes)
        count += bytes.count
    }

    /// Moves up to `limit` bytes into `destination`; returns how many.
    mutating func read(into destination: UnsafeMutablePointer<UInt8>, limit: Int) -> Int {
        var written = 0
        while written < limit, first < chunks.count {
            let chunk = chunks[first]
            let take = min(limit - written, chunk.count)
            chunk.withUnsafeBufferPointer { source in
                (destination + written).update(from: source.baseAddress!, count: take)
            }
            written += take
            if take == chunk.count {
                chunks[first] = []
                first += 1
            } else {
                chunks[first] = chunk.dropFirst(take)
            }
        }
        count -= written
        if first == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            first = 0
        } else if first > 64, first * 2 > chunks.count {
            chunks.removeFirst(first)
            first = 0
        }
        return written
    }

    /// Drops everything queued (the stream was reset or closed).
    mutating func discard() {
        chunks = []
        first = 0
        count = 0
        trailers = nil
        resetCode = nil
        finished = true
    }
}
