import CNghttp2

// What a caller needs to tell a peer that stalls the connection from one that is merely slow:
// output that waits for the peer's flow-control window, whether DATA still leaves, and a header
// block the peer began and has not finished. The connection only reports; timers and what to do
// when one runs out are the caller's.

extension HTTP2Connection {
    /// Whether `stream` has body bytes queued (``sendData(stream:_:endStream:)``) that nghttp2
    /// cannot send because the peer's flow-control window is closed: the stream's, or the
    /// connection's (RFC 9113 §6.9; the effective window is the smaller of the two, and a
    /// SETTINGS_INITIAL_WINDOW_SIZE change can make it negative, §6.9.2). Only the peer opens it
    /// again, with WINDOW_UPDATE: a peer that sends nothing more (its FIN) never will. False for a
    /// stream that is not open, has nothing queued, or whose window is open (its bytes go with the
    /// next ``takeOutput()``).
    public func isWaitingForWindow(stream: Int32) -> Bool {
        guard !failed, let state = streams[stream], !state.outbound.isEmpty, state.outbound.providerAttached else {
            return false
        }
        let streamWindow = nghttp2_session_get_stream_remote_window_size(session, stream)
        return streamWindow <= 0 || nghttp2_session_get_remote_window_size(session) <= 0
    }

    /// Whether the peer can send no DATA on `stream` because we have not given the window back:
    /// the stream's receive window or the connection's is used up (RFC 9113 §6.9). Flow control
    /// is manual here, so only ``consumed(stream:bytes:)`` opens them again (§5.2.2): a request
    /// body that is silent meanwhile waits for us, not we for it. False for a stream that is not
    /// open.
    public func isPeerOutOfWindow(stream: Int32) -> Bool {
        guard !failed, streams[stream] != nil else { return false }
        return nghttp2_session_get_stream_local_window_size(session, stream) <= 0
            || nghttp2_session_get_local_window_size(session) <= 0
    }

    /// Whether our END_STREAM on `stream` has been written (the stream is half-closed (local)
    /// or closed, RFC 9113 §5.1): its response is complete on the wire. False for a stream that
    /// is not open.
    public func hasSentEndStream(stream: Int32) -> Bool {
        !failed && nghttp2_session_get_stream_local_close(session, stream) == 1
    }

    /// DATA payload octets written to the output since the connection began (every frame
    /// ``takeOutput()`` returned). A caller compares two readings to tell whether body bytes
    /// left in between: a stream waiting for the window that moves, however slowly, is not idle.
    public var dataOctetsSent: Int { sentDataOctets }

    /// The header block the peer has begun and not finished, numbered from 1 in the order
    /// blocks began, so a caller timing one can tell it from the next; nil when no block is
    /// arriving, and after the connection failed. A block begins with the frame header of a
    /// HEADERS (or PUSH_PROMISE) frame and ends with the last payload octet of the frame that
    /// carries END_HEADERS (RFC 9113 §4.3, §6.10): a HEADERS frame whose payload trickles in is
    /// as unfinished as one whose CONTINUATION frames do not come (``HeaderBlockTracker``).
    public var unfinishedHeaderBlock: Int? {
        failed ? nil : headerBlocks.openBlock
    }
}
