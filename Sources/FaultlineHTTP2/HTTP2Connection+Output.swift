import CNghttp2
public import FaultlineCore

// What the caller sends: heads, per-stream data queues read by one nghttp2 data provider,
// trailers, resets, GOAWAY, and the flow-control credit for what it received. Each method
// submits to nghttp2 and returns; the frames come out of `takeOutput()`.
//
// Calls about a stream that is not open (never opened, or closed since — the peer may reset a
// stream at any moment) are ignored: the caller learns of the close from `.streamClosed`.

extension HTTP2Connection {
    // MARK: Server role

    /// Submits a response head for the peer's `stream` (server role): `:status` first, then the
    /// fields (RFC 9113 §8.3.2). A 1xx head is informational and may come more than once before
    /// the final head (`endStream` is ignored for it, §8.1). A final head with `endStream` ends
    /// the stream (no body); otherwise the body follows with ``sendData(stream:_:endStream:)``
    /// (data queued before the head is sent after it) and ends with `endStream` or
    /// ``sendTrailers(stream:headers:)``. A second final head, or a head for a stream that is
    /// not open, is ignored. Call ``takeOutput()`` afterwards.
    public func sendResponseHead(stream: Int32, headers: [HTTP2Header], endStream: Bool) {
        guard role == .server, !failed, let state = streams[stream], !state.headSubmitted else { return }
        let none = UInt8(NGHTTP2_FLAG_NONE.rawValue)
        let result: Int32
        if Self.isInformational(headers) {
            result = NameValueList.with(headers) { nghttp2_submit_headers(session, none, stream, nil, $0, $1, nil) }
        } else if endStream {
            result = NameValueList.with(headers) { nghttp2_submit_response(session, stream, $0, $1, nil) }
            updateStream(stream) { state in
                state.headSubmitted = true
                state.outbound.discard()
            }
        } else {
            var provider = Self.dataProvider
            result = NameValueList.with(headers) { nghttp2_submit_response(session, stream, $0, $1, &provider) }
            updateStream(stream) { state in
                state.headSubmitted = true
                state.outbound.providerAttached = true
            }
        }
        if result != 0 { refuseSubmission(stream: stream, what: "the response head", result) }
    }

    // MARK: Client role

    /// Whether ``startRequest(headers:endStream:)`` can open a stream now (client role, no
    /// GOAWAY either way, stream IDs left, under the peer's SETTINGS_MAX_CONCURRENT_STREAMS).
    public var canStartRequest: Bool {
        role == .client && !failed && nghttp2_session_check_request_allowed(session) != 0
            && streams.count
                < Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
    }

    /// Submits a request head (client role) and returns the new stream's ID: pseudo-headers
    /// `:method`, `:scheme`, `:authority`, `:path` first (RFC 9113 §8.3.1), then the fields. With
    /// `endStream` the request has no body; otherwise send it with
    /// ``sendData(stream:_:endStream:)`` and end it with `endStream` or
    /// ``sendTrailers(stream:headers:)``. Call ``takeOutput()`` afterwards.
    /// Throws `no-new-streams` (GOAWAY sent or received, stream IDs spent, the connection
    /// failed), `concurrency-limit` (as many of our streams are open as the peer allows, §5.1.2:
    /// retry after a `.streamClosed`), `wrong-role`, or `submission-failed`.
    public func startRequest(headers: [HTTP2Header], endStream: Bool) throws(HTTP2Error) -> Int32 {
        guard role == .client else {
            throw HTTP2Error(code: HTTP2Error.wrongRole, message: "A server-role connection cannot start requests.")
        }
        guard !failed, nghttp2_session_check_request_allowed(session) != 0 else {
            throw HTTP2Error(
                code: HTTP2Error.noNewStreams,
                message: "No new stream can be opened: GOAWAY was sent or received, or the connection failed.")
        }
        let allowed = nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
        guard streams.count < Int(allowed) else {
            throw HTTP2Error(
                code: HTTP2Error.concurrencyLimit,
                message:
                    "\(streams.count) streams are open, as many as the peer's SETTINGS_MAX_CONCURRENT_STREAMS allows.")
        }
        var provider = Self.dataProvider
        let id = NameValueList.with(headers) { fields, count in
            endStream
                ? nghttp2_submit_request(session, nil, fields, count, nil, nil)
                : nghttp2_submit_request(session, nil, fields, count, &provider, nil)
        }
        guard id > 0 else {
            throw HTTP2Error(
                code: id == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE.rawValue
                    ? HTTP2Error.noNewStreams : HTTP2Error.submissionFailed,
                message: "nghttp2 refused the request: \(Self.libraryText(id)).")
        }
        var state = StreamState()
        state.headSubmitted = true
        state.outbound.providerAttached = !endStream
        state.outbound.finished = endStream
        streams[id] = state
        return id
    }

    // MARK: Both roles

    /// Queues body bytes for `stream`; nghttp2 takes them through the data provider as the
    /// peer's flow-control windows allow (RFC 9113 §6.9) when ``takeOutput()`` runs. `endStream`
    /// ends the stream after these bytes (empty bytes with `endStream` just end it). Ignored once
    /// the stream was ended, and for a stream that is not open. ``bufferedOutboundBytes(stream:)``
    /// says how much is still queued; `.windowAvailable` comes when the queue drains.
    public func sendData(stream: Int32, _ bytes: ArraySlice<UInt8>, endStream: Bool) {
        guard !failed else { return }
        let resume = updateStream(stream) { state -> Bool in
            guard !state.outbound.endRequested, !state.outbound.finished else { return false }
            state.outbound.append(bytes)
            if endStream { state.outbound.endRequested = true }
            return state.outbound.takeDeferral()
        }
        if resume == true { nghttp2_session_resume_data(session, stream) }
    }

    /// Queues trailers for `stream` (no pseudo-headers, §8.1): they follow every byte queued so
    /// far and end the stream. The last DATA frame goes without END_STREAM
    /// (`NGHTTP2_DATA_FLAG_NO_END_STREAM`) and the trailers are submitted with
    /// `nghttp2_submit_trailer` from inside the data provider when the queue drains. Ignored once
    /// the stream was ended, and for a stream that is not open.
    public func sendTrailers(stream: Int32, headers: [HTTP2Header]) {
        guard !failed else { return }
        let resume = updateStream(stream) { state -> Bool in
            guard !state.outbound.endRequested, !state.outbound.finished else { return false }
            state.outbound.trailers = headers
            state.outbound.endRequested = true
            return state.outbound.takeDeferral()
        }
        if resume == true { nghttp2_session_resume_data(session, stream) }
    }

    /// Resets `stream` with `code` (RST_STREAM, RFC 9113 §6.4) and drops its queued data.
    /// `.streamClosed` follows once the frame is written (client role: a request whose HEADERS
    /// were not sent yet is just withdrawn). Call ``takeOutput()`` afterwards.
    ///
    /// With `afterQueuedData`, a response whose head went to nghttp2 with a body still to come
    /// keeps its place: the RST_STREAM follows the head and every byte queued so far, as the
    /// flow control window lets them out (a fault "after N body bytes" must show the peer those
    /// bytes). An RST_STREAM submitted at once would overtake them: nghttp2 sends it first and
    /// drops the stream's pending HEADERS and DATA.
    public func reset(stream: Int32, code: HTTP2ErrorCode, afterQueuedData: Bool = false) {
        guard !failed, stream > 0 else { return }
        if afterQueuedData {
            let resume = updateStream(stream) { state -> Bool? in
                guard state.outbound.providerAttached, !state.outbound.finished else { return nil }
                state.outbound.resetCode = code
                state.outbound.trailers = nil
                state.outbound.endRequested = true  // nothing more is queued after it
                return state.outbound.takeDeferral()
            }
            if let resume = resume ?? nil {
                if resume { nghttp2_session_resume_data(session, stream) }
                return
            }
        }
        submitReset(stream: stream, code: code)
        updateStream(stream) { $0.outbound.discard() }
    }

    private func submitReset(stream: Int32, code: HTTP2ErrorCode) {
        if nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, code.rawValue) == 0 {
            resetsWeSubmitted.insert(stream)
        }
    }

    /// Sends GOAWAY (RFC 9113 §6.8) with `code` and `debug` as its debug data: the peer may start
    /// no new streams; streams up to `lastStreamID` (nil: the last one nghttp2 processed) may
    /// finish, later ones are closed. With `.noError` this is a graceful shutdown; send a
    /// non-zero code when the connection is being given up. Once no stream is active,
    /// ``isFinished`` becomes true. Call ``takeOutput()`` afterwards.
    public func goAway(code: HTTP2ErrorCode, lastStreamID: Int32? = nil, debug: String = "") {
        guard !failed else { return }
        let last = lastStreamID ?? nghttp2_session_get_last_proc_stream_id(session)
        let debugBytes = Array(debug.utf8)
        let result = nghttp2_submit_goaway(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, code.rawValue, debugBytes, debugBytes.count)
        if result == 0 { goAwaysWeSubmitted.append((code.rawValue, debugBytes)) }
    }

    /// The highest stream ID of the peer's that nghttp2 accepted and handed on
    /// (`nghttp2_session_get_last_proc_stream_id`; 0 before the first): what a graceful GOAWAY
    /// names as its last stream (RFC 9113 §6.8), and what ``goAway(code:lastStreamID:debug:)``
    /// names when given nil. A stream refused before it opened (over the concurrency limit, after
    /// our GOAWAY) does not count.
    public var lastProcessedStreamID: Int32 {
        nghttp2_session_get_last_proc_stream_id(session)
    }

    /// Flow control is manual (`nghttp2_option_set_no_auto_window_update`): call when `bytes`
    /// of `stream`'s `.data` have been handed on, so the peer may send more. nghttp2 sends
    /// WINDOW_UPDATE for the stream and the connection once half a window is consumed. Not
    /// calling it is how backpressure reaches the peer (RFC 9113 §5.2.2). Call it for every
    /// byte received, also after the stream closed or was reset: the connection window counts
    /// them too.
    public func consumed(stream: Int32, bytes: Int) {
        guard !failed, stream > 0, bytes > 0 else { return }
        _ = nghttp2_session_consume(session, stream, bytes)
    }

    /// Bytes queued with ``sendData(stream:_:endStream:)`` for `stream` and not yet taken by
    /// nghttp2 (0 for a stream that is not open). Above 0 after ``takeOutput()``: the peer's
    /// window is closed, or the head has not been sent yet.
    public func bufferedOutboundBytes(stream: Int32) -> Int {
        streams[stream]?.outbound.count ?? 0
    }

    // MARK: The data provider

    /// The one provider every stream's body goes through; `read` finds the stream by ID.
    static var dataProvider: nghttp2_data_provider {
        nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: readOutboundData)
    }

    /// nghttp2 wants up to `length` bytes of `stream`'s body (called inside `mem_send`).
    /// Returns the byte count, `NGHTTP2_ERR_DEFERRED` when the queue is empty and the stream not
    /// ended (``sendData`` resumes it), or `NGHTTP2_ERR_PAUSE` while `receive` drains answers.
    func readOutbound(stream: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: inout UInt32) -> Int
    {
        if pausingData { return Int(NGHTTP2_ERR_PAUSE.rawValue) }
        var trailers: [HTTP2Header]?
        var resetCode: HTTP2ErrorCode?
        var drained = false
        let result = updateStream(stream) { state -> Int in
            let count = state.outbound.read(into: buffer, limit: length)
            guard state.outbound.isEmpty else { return count }
            if let code = state.outbound.resetCode {
                // The last queued bytes go in this frame (without END_STREAM); the RST_STREAM,
                // submitted below, is the next frame nghttp2 sends for the stream.
                resetCode = code
                state.outbound.resetCode = nil
                state.outbound.finished = true
                return count > 0 ? count : Int(NGHTTP2_ERR_DEFERRED.rawValue)
            }
            if state.outbound.endRequested {
                flags |= NGHTTP2_DATA_FLAG_EOF.rawValue
                state.outbound.finished = true
                if let queued = state.outbound.trailers {
                    // RFC 9113 §8.1: the trailers' HEADERS ends the stream, not this DATA frame.
                    flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM.rawValue
                    trailers = queued
                    state.outbound.trailers = nil
                }
                return count
            }
            guard count > 0 else {
                state.outbound.deferred = true
                return Int(NGHTTP2_ERR_DEFERRED.rawValue)
            }
            drained = true
            return count
        }
        guard let result else {
            // Not a stream of ours any more (cannot happen: nghttp2 stops reading closed streams).
            flags |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        if let trailers {
            let submitted = NameValueList.with(trailers) { nghttp2_submit_trailer(session, stream, $0, $1) }
            if submitted != 0 { refuseSubmission(stream: stream, what: "the trailers", submitted) }
        }
        if let resetCode { submitReset(stream: stream, code: resetCode) }
        if drained { events.append(.windowAvailable(stream: stream)) }
        return result
    }

    /// nghttp2 refused a submission for `stream`: the stream cannot go on as the caller wants,
    /// so it is reset and reported.
    private func refuseSubmission(stream: Int32, what: String, _ result: Int32) {
        events.append(.streamError(stream: stream, reason: "nghttp2 refused \(what): \(Self.libraryText(result))."))
        if nghttp2_submit_rst_stream(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, HTTP2ErrorCode.internalError.rawValue)
            == 0
        {
            resetsWeSubmitted.insert(stream)
        }
        updateStream(stream) { $0.outbound.discard() }
    }
}

extension OutboundStream {
    /// True if the provider is deferred and must be resumed for the data just queued; clears it.
    fileprivate mutating func takeDeferral() -> Bool {
        guard deferred else { return false }
        deferred = false
        return true
    }
}

/// `nghttp2_data_source_read_callback` for every stream: hands over to the connection.
private func readOutboundData(
    _ session: OpaquePointer?, _ stream: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
    _ flags: UnsafeMutablePointer<UInt32>?, _ source: UnsafeMutablePointer<nghttp2_data_source>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let flags, let userData else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
    let connection = Unmanaged<HTTP2Connection>.fromOpaque(userData).takeUnretainedValue()
    return connection.readOutbound(stream: stream, into: buffer, length: length, flags: &flags.pointee)
}
