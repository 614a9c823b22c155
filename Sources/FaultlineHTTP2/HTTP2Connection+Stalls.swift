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

    /// DATA payload octets written to the output since the connection began (every frame
    /// ``takeOutput()`` returned). A caller compares two readings to tell whether body bytes
    /// left in between: a stream waiting for the window that moves, however slowly, is not idle.
    public var dataOctetsSent: Int { sentDataOctets }

    /// The header block the peer began with a HEADERS frame without END_HEADERS and has not
    /// finished (RFC 9113 §4.3, §6.10: its CONTINUATION frames must follow, and until the one with
    /// END_HEADERS has arrived the connection can process no other frame), numbered from 1 in
    /// the order blocks began, so a caller timing one can tell it from the next; nil when no
    /// block is open, and after the connection failed. A block counts as finished once the frame
    /// header of its END_HEADERS CONTINUATION has arrived.
    public var unfinishedHeaderBlock: Int? {
        failed ? nil : openHeaderBlock
    }

    /// Follows the header blocks through their frame headers (nghttp2's `on_begin_frame` sees
    /// every frame header, CONTINUATION included): a HEADERS or PUSH_PROMISE without
    /// END_HEADERS opens a block, a CONTINUATION with END_HEADERS closes it.
    func trackHeaderBlock(_ header: nghttp2_frame_hd) {
        let endHeaders = header.flags & UInt8(NGHTTP2_FLAG_END_HEADERS.rawValue) != 0
        switch UInt32(header.type) {
        case NGHTTP2_HEADERS.rawValue, NGHTTP2_PUSH_PROMISE.rawValue:
            if endHeaders {
                openHeaderBlock = nil
            } else {
                headerBlocksBegun += 1
                openHeaderBlock = headerBlocksBegun
            }
        case NGHTTP2_CONTINUATION.rawValue:
            if endHeaders { openHeaderBlock = nil }
        default:
            break
        }
    }
}
