import CNghttp2
import FaultlineCore

// nghttp2 calls these from inside `mem_recv` and `mem_send`. They record events and stream
// state, and at most submit frames (an RST_STREAM, trailers); they never call `mem_recv` or
// `mem_send`. Returning anything but 0 (or the documented TEMPORAL_CALLBACK_FAILURE) would be a
// fatal error for the whole session, so they do not.

extension HTTP2Connection {
    /// Points the session's callbacks at the connection. nghttp2 takes C function pointers, so
    /// these closures capture nothing: each finds the connection through `user_data` and hands
    /// it what nghttp2 passed, to the method of the same name.
    static func installCallbacks(_ callbacks: OpaquePointer) {
        nghttp2_session_callbacks_set_on_begin_frame_callback(callbacks) { _, header, userData in
            deliver(header, userData) { $0.beginFrame($1) }
        }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            guard let frame, let connection = owner(userData) else { return 0 }
            return connection.beginHeaders(frame.pointee)
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, flags, userData in
            guard let frame, let connection = owner(userData) else { return 0 }
            return connection.header(
                frame.pointee, name: UnsafeBufferPointer(start: name, count: nameLength),
                value: UnsafeBufferPointer(start: value, count: valueLength), flags: flags)
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, stream, data, length, userData in
            owner(userData)?.dataChunk(stream: stream, UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            deliver(frame, userData) { $0.frameReceived($1) }
        }
        nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks) { _, frame, libraryError, userData in
            deliver(frame, userData) { $0.invalidFrameReceived($1, libraryError: libraryError) }
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, userData in
            deliver(frame, userData) { $0.frameSent($1) }
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { _, frame, libraryError, userData in
            deliver(frame, userData) { $0.frameNotSent($1, libraryError: libraryError) }
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, stream, code, userData in
            owner(userData)?.streamClosed(stream, code: code)
            return 0
        }
    }

    /// Runs `body` on the state of stream `id` in place; nil if the stream is not open.
    @discardableResult
    func updateStream<Result>(_ id: Int32, _ body: (inout StreamState) -> Result) -> Result? {
        guard let index = streams.index(forKey: id) else { return nil }
        return body(&streams.values[index])
    }

    // MARK: Receiving

    /// A frame header arrived: a HEADERS frame's stream ID is checked against the IDs the peer
    /// used (HTTP2Connection+Admission.swift); a DATA frame starts a fresh payload for its
    /// stream. Bytes left from an earlier frame were never delivered (nghttp2 dropped that frame
    /// mid-way). (Header blocks are followed by ``HeaderBlockTracker``: nghttp2 does not call
    /// this for every frame.)
    func beginFrame(_ header: nghttp2_frame_hd) {
        if header.type == UInt8(NGHTTP2_HEADERS.rawValue) { checkStreamOrder(header.stream_id) }
        guard header.type == UInt8(NGHTTP2_DATA.rawValue) else { return }
        let dropped = updateStream(header.stream_id) { state -> Int in
            let count = state.frameData.count
            state.frameData.removeAll(keepingCapacity: true)
            return count
        }
        undeliveredData += dropped ?? 0
    }

    /// A header block starts (HEADERS; its CONTINUATIONs are part of it, §4.3). A request opens
    /// the stream (nghttp2 has checked its ID) unless it is over the concurrency limit
    /// (``admitsNewStream(_:)``): then it is reset and `NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE`
    /// makes nghttp2 skip its block (decoding it for HPACK's sake, §4.3).
    func beginHeaders(_ frame: nghttp2_frame) -> Int32 {
        guard frame.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
        let id = frame.hd.stream_id
        if frame.headers.cat == NGHTTP2_HCAT_REQUEST {
            guard admitsNewStream(id) else { return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue }
            streams[id] = StreamState()
            lastPeerStreamID = max(lastPeerStreamID, id)
        }
        updateStream(id) { state in
            state.block = []
            // Room for a typical block's fields at once, rather than growing four times.
            state.block.reserveCapacity(8)
            state.blockSize = 0
            state.blockRefused = false
        }
        return 0
    }

    /// One field of the block. Enforces ``Limits/maxHeaderListSize`` as RFC 9113 §6.5.2 counts:
    /// over it, the stream is reset with ENHANCE_YOUR_CALM (submitted here, so nghttp2's
    /// INTERNAL_ERROR reset for TEMPORAL_CALLBACK_FAILURE is not added: one RST_STREAM per
    /// stream) and the rest of the block is dropped by nghttp2.
    func header(
        _ frame: nghttp2_frame, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, flags: UInt8
    ) -> Int32 {
        let id = frame.hd.stream_id
        let limit = Int(limits.maxHeaderListSize)
        let accepted = updateStream(id) { state -> Bool in
            guard !state.blockRefused else { return false }
            state.blockSize += name.count + value.count + 32
            guard state.blockSize <= limit else {
                state.blockRefused = true
                state.block = []
                return false
            }
            let neverIndexed = flags & UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue) != 0
            state.block.append(HTTP2Header(nameBytes: name, valueBytes: value, neverIndexed: neverIndexed))
            return true
        }
        guard accepted == false else { return 0 }
        let none = UInt8(NGHTTP2_FLAG_NONE.rawValue)
        if nghttp2_submit_rst_stream(session, none, id, HTTP2ErrorCode.enhanceYourCalm.rawValue) == 0 {
            resetsWeSubmitted.insert(id)
        }
        events.append(
            .streamError(
                stream: id,
                reason:
                    "The header block is over maxHeaderListSize (\(limit) octets, counted as RFC 9113 §6.5.2 does): stream reset with ENHANCE_YOUR_CALM."
            ))
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
    }

    /// Part of a DATA frame's payload (padding already removed): kept until the frame is complete.
    func dataChunk(stream: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        updateStream(stream) { $0.frameData.append(contentsOf: bytes) }
    }

    /// A whole frame arrived and nghttp2 accepted it (HEADERS with its CONTINUATIONs as one).
    func frameReceived(_ frame: nghttp2_frame) {
        let id = frame.hd.stream_id
        let endStream = frame.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        switch UInt32(frame.hd.type) {
        case NGHTTP2_DATA.rawValue:
            guard
                let bytes = updateStream(
                    id,
                    { state -> [UInt8] in
                        let bytes = state.frameData
                        state.frameData = []
                        return bytes
                    })
            else { return }
            // A DATA frame of nothing but padding says nothing (nghttp2 consumed the padding).
            if !bytes.isEmpty || endStream { events.append(.data(stream: id, bytes: bytes, endStream: endStream)) }
        case NGHTTP2_HEADERS.rawValue:
            headerBlockReceived(stream: id, endStream: endStream)
        case NGHTTP2_RST_STREAM.rawValue:
            events.append(.streamReset(stream: id, code: HTTP2ErrorCode(rawValue: frame.rst_stream.error_code)))
        case NGHTTP2_SETTINGS.rawValue:
            guard frame.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 else { return }
            let entries = UnsafeBufferPointer(start: frame.settings.iv, count: frame.settings.niv)
            events.append(
                .settings(
                    entries.map {
                        HTTP2Setting(identifier: UInt16(truncatingIfNeeded: $0.settings_id), value: $0.value)
                    }))
        case NGHTTP2_GOAWAY.rawValue:
            let goAway = frame.goaway
            let debug = UnsafeBufferPointer(start: goAway.opaque_data, count: goAway.opaque_data_len)
            events.append(
                .goAway(
                    lastStreamID: goAway.last_stream_id, code: HTTP2ErrorCode(rawValue: goAway.error_code),
                    debug: String(decoding: debug, as: UTF8.self)))
        default:
            break  // PING (nghttp2 answers), WINDOW_UPDATE, PRIORITY: nothing for the caller.
        }
    }

    /// A complete header block: the stream's head until a final one arrived, trailers after.
    /// Client role: a 1xx head is informational and a final head may follow (§8.1).
    private func headerBlockReceived(stream id: Int32, endStream: Bool) {
        let role = role
        guard
            let event = updateStream(
                id,
                { state -> HTTP2Event in
                    let block = state.block
                    state.block = []
                    guard !state.finalHeadReceived else { return .trailers(stream: id, headers: block) }
                    if role == .server || !Self.isInformational(block) { state.finalHeadReceived = true }
                    return .headers(stream: id, headers: block, endStream: endStream)
                })
        else { return }
        events.append(event)
    }

    /// Whether a response head is 1xx (§8.1: informational, a final response follows).
    static func isInformational(_ headers: [HTTP2Header]) -> Bool {
        guard let status = headers.first(where: { $0.name == ":status" })?.value else { return false }
        return status.utf8.count == 3 && status.utf8.first == UInt8(ascii: "1")
    }

    /// nghttp2 found a received frame invalid and queued an RST_STREAM or GOAWAY for it. The
    /// reason is kept for the event reported when that frame is written (the callback does not
    /// say which of the two it queued). nghttp2's `error_callback` text is not used: for invalid
    /// fields it quotes the field's value, which may be a secret.
    func invalidFrameReceived(_ frame: nghttp2_frame, libraryError: Int32) {
        let type = Self.frameTypeName(frame.hd.type)
        invalidFrameReasons[frame.hd.stream_id] = "\(type) frame refused by nghttp2: \(Self.libraryText(libraryError))"
    }

    // MARK: Sending

    /// A frame was written to the output. An RST_STREAM or GOAWAY we did not submit is nghttp2's
    /// own decision about the peer: `.streamError` or `.connectionError`.
    func frameSent(_ frame: nghttp2_frame) {
        let id = frame.hd.stream_id
        switch UInt32(frame.hd.type) {
        case NGHTTP2_DATA.rawValue:
            sentDataOctets += frame.hd.length
        case NGHTTP2_RST_STREAM.rawValue:
            guard resetsWeSubmitted.remove(id) == nil else { return }
            let code = HTTP2ErrorCode(rawValue: frame.rst_stream.error_code)
            let reason =
                invalidFrameReasons.removeValue(forKey: id)
                ?? "nghttp2 reset the stream with \(code): the peer broke HTTP/2 messaging rules (RFC 9113 §8.1.1, e.g. content-length against DATA)."
            events.append(.streamError(stream: id, reason: reason))
        case NGHTTP2_GOAWAY.rawValue:
            let goAway = frame.goaway
            let debug = Array(UnsafeBufferPointer(start: goAway.opaque_data, count: goAway.opaque_data_len))
            if let ours = goAwaysWeSubmitted.firstIndex(where: { $0.code == goAway.error_code && $0.debug == debug }) {
                goAwaysWeSubmitted.remove(at: ours)
                return
            }
            let code = HTTP2ErrorCode(rawValue: goAway.error_code)
            var reason = String(decoding: debug, as: UTF8.self)
            if reason.isEmpty {
                reason =
                    invalidFrameReasons.removeValue(forKey: 0)
                    ?? "nghttp2 sent GOAWAY \(code) without a reason: in nghttp2 1.52 (CVE-2023-44487 backport) that is the stream reset rate limit (rapid reset)."
            }
            connectionErrorLastStreamID = goAway.last_stream_id
            events.append(.connectionError(code: code, reason: reason))
        default:
            break
        }
    }

    /// A frame we submitted could not be written. For our HEADERS that means the stream cannot
    /// go on (too large a block, for instance): `.streamError`, and a response stream is reset
    /// (nghttp2 closes a failed request stream itself, with REFUSED_STREAM). Failures because the
    /// stream or the session is closing already are reported by those events instead.
    func frameNotSent(_ frame: nghttp2_frame, libraryError: Int32) {
        let id = frame.hd.stream_id
        switch UInt32(frame.hd.type) {
        case NGHTTP2_HEADERS.rawValue:
            let expected: Set<Int32> = [
                NGHTTP2_ERR_STREAM_CLOSED.rawValue, NGHTTP2_ERR_STREAM_CLOSING.rawValue,
                NGHTTP2_ERR_SESSION_CLOSING.rawValue, NGHTTP2_ERR_START_STREAM_NOT_ALLOWED.rawValue,
            ]
            guard !expected.contains(libraryError), !resetsWeSubmitted.contains(id) else { return }
            events.append(
                .streamError(stream: id, reason: "Our HEADERS could not be sent: \(Self.libraryText(libraryError))."))
            if frame.headers.cat != NGHTTP2_HCAT_REQUEST, streams[id] != nil,
                nghttp2_submit_rst_stream(
                    session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, HTTP2ErrorCode.internalError.rawValue)
                    == 0
            {
                resetsWeSubmitted.insert(id)
                updateStream(id) { $0.outbound.discard() }
            }
        case NGHTTP2_RST_STREAM.rawValue:
            resetsWeSubmitted.remove(id)
        case NGHTTP2_GOAWAY.rawValue:
            let goAway = frame.goaway
            let debug = Array(UnsafeBufferPointer(start: goAway.opaque_data, count: goAway.opaque_data_len))
            if let ours = goAwaysWeSubmitted.firstIndex(where: { $0.code == goAway.error_code && $0.debug == debug }) {
                goAwaysWeSubmitted.remove(at: ours)
            }
        default:
            break
        }
    }

    /// nghttp2 closed the stream: its last event; its state goes. Payload of a DATA frame
    /// nghttp2 rejected (content-length against END_STREAM, §8.1.1) was never delivered: it is
    /// credited back to the connection window here, as the caller cannot.
    func streamClosed(_ id: Int32, code: UInt32) {
        if let state = streams.removeValue(forKey: id) { undeliveredData += state.frameData.count }
        invalidFrameReasons.removeValue(forKey: id)
        events.append(.streamClosed(stream: id, code: HTTP2ErrorCode(rawValue: code)))
    }

    /// "HEADERS", "DATA", … for reasons.
    static func frameTypeName(_ type: UInt8) -> String {
        let names = [
            "DATA", "HEADERS", "PRIORITY", "RST_STREAM", "SETTINGS", "PUSH_PROMISE", "PING", "GOAWAY", "WINDOW_UPDATE",
            "CONTINUATION",
        ]
        return Int(type) < names.count ? names[Int(type)] : "frame type 0x" + String(type, radix: 16)
    }
}

// MARK: - What the C callbacks share

/// The connection a callback's `user_data` points to (set in `HTTP2Connection.init`).
private func owner(_ userData: UnsafeMutableRawPointer?) -> HTTP2Connection? {
    guard let userData else { return nil }
    return Unmanaged<HTTP2Connection>.fromOpaque(userData).takeUnretainedValue()
}

/// Hands what nghttp2 passed a callback (a frame or a frame header) to the connection
/// `userData` points to. Returns 0, carry on, also when either is missing: there is then
/// nothing to deliver it to, and failing the session would not help.
private func deliver<Frame>(
    _ frame: UnsafePointer<Frame>?, _ userData: UnsafeMutableRawPointer?,
    to handle: (HTTP2Connection, Frame) -> Void
) -> Int32 {
    guard let frame, let connection = owner(userData) else { return 0 }
    handle(connection, frame.pointee)
    return 0
}
