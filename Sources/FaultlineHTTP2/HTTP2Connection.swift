import CNghttp2

/// One HTTP/2 connection's protocol state over nghttp2 (RFC 9113), no I/O: bytes in, events out,
/// frames to send out. Not thread-safe: one event loop owns it.
///
/// Theory of operation. nghttp2 keeps the protocol state: streams and their states (§5.1),
/// HPACK (RFC 7541), flow-control windows (§5.2), SETTINGS and their acknowledgements (§6.5.3),
/// PING answers (§6.7), and the checks of HTTP messaging (§8). This class drives it over memory
/// the way `TLSConnection` drives OpenSSL, and the caller's loop does, on one thread:
///
/// 1. socket bytes → ``receive(_:)``. `nghttp2_session_mem_recv` parses them and calls our
///    callbacks (HTTP2Connection+Callbacks.swift), which only record: events are collected in
///    order and returned when it is done. Then the frames nghttp2 queued in answer (SETTINGS
///    ACK, PING ACK, WINDOW_UPDATE, and any RST_STREAM or GOAWAY it decided on) are moved to our
///    output with `nghttp2_session_mem_send` while the data provider answers
///    `NGHTTP2_ERR_PAUSE`: a refusal nghttp2 made on its own becomes a `.streamError` or
///    `.connectionError` of this very call, and no DATA is pulled before the caller asks.
/// 2. the caller reacts with submissions (HTTP2Connection+Output.swift): ``sendResponseHead``,
///    ``startRequest``, ``sendData``, ``sendTrailers``, ``reset``, ``goAway``, ``consumed``.
///    None of them does I/O.
/// 3. when the socket can take bytes, ``takeOutput()``: `mem_send` until nghttp2 has nothing
///    more. DATA comes from per-stream queues through one data provider, as flow control allows
///    (§6.9); a drained queue defers its stream (`NGHTTP2_ERR_DEFERRED`) until ``sendData``
///    queues more and resumes it. Events that arise while sending (a stream closed by our
///    END_STREAM, `.windowAvailable`) wait for ``takeEvents()`` and otherwise lead the next
///    `receive`.
/// 4. close the socket when ``isFinished``.
///
/// Rules kept throughout: `mem_recv` and `mem_send` are never called from inside an nghttp2
/// callback (callbacks record, and at most submit); callbacks find this object through the
/// session's user data, an unretained pointer that stays valid because the session is freed in
/// our `deinit`.
///
/// Errors. Whatever the peer does is a value, never a crash: a stream error is `.streamError`
/// and an RST_STREAM in the output, a connection error `.connectionError` and a GOAWAY (§5.4).
/// nghttp2's HTTP messaging checks stay on. When nghttp2 reports an error it cannot continue
/// from (bad client magic, CONTINUATION flood, ACK flood, out of memory), the session may only be
/// freed: we stop calling it, write the GOAWAY ourselves (HTTP2Connection+Failure.swift) and
/// report `.connectionError`.
///
/// Two checks of a client's new streams are ours, not nghttp2's (HTTP2Connection+Admission.swift):
/// a stream over ``Limits/maxConcurrentStreams`` is refused alone, and a HEADERS on a stream ID
/// the client skipped is a connection error (RFC 9113 §5.1.2, §5.1.1).
///
/// Flow control is manual (`nghttp2_option_set_no_auto_window_update`): the peer gets
/// WINDOW_UPDATE only for bytes the caller reports with ``consumed(stream:bytes:)``, so a caller
/// that stops handing data on stops the peer (§5.2.2).
///
/// Backpressure. Call ``takeOutput()`` only when the socket can take bytes, and stop calling
/// ``receive(_:)`` while taken bytes are still unwritten: that keeps a peer that never reads from
/// piling up our answers (§10.5). `receive` moves at most ``controlFlushLimit`` bytes of
/// answers out of nghttp2; beyond that they stay inside it, where its own ACK-flood limit
/// applies.
public final class HTTP2Connection {
    /// Which end of the connection this is: the server answers requests (the proxy's client
    /// side), the client sends them (an upstream connection).
    public enum Role: Sendable { case server, client }

    /// The ALPN protocol identifier of HTTP/2 over TLS (RFC 9113 §3.2).
    public static let alpn = "h2"

    /// How many bytes of answers `receive` moves to the output before it leaves the rest in
    /// nghttp2 (see "Backpressure" above).
    public static let controlFlushLimit = 64 * 1024

    /// `nghttp2_session *`, owned.
    let session: OpaquePointer
    public let role: Role
    public let limits: Limits

    // Loop-confined state every frame changes in place: release builds skip Swift's dynamic
    // exclusivity check on it, debug builds (every test) keep it (ARCHITECTURE.md, "Exclusivity").
    /// Every stream nghttp2 has open, by ID (see ``StreamState``).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var streams: [Int32: StreamState] = [:]
    /// Events recorded by the callbacks and not handed out yet.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var events: [HTTP2Event] = []
    /// Frames taken from nghttp2 (or written by us after a fatal error) and not handed out yet.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var pendingOutput: [UInt8] = []
    /// Set while `receive` drains answers: the data provider answers `NGHTTP2_ERR_PAUSE`.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var pausingData = false
    /// nghttp2 reported a fatal error: the session may only be freed.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var failed = false
    /// `mem_send` has produced bytes: our connection preface is on its way (§3.4).
    var prefaceTaken = false
    /// The highest stream ID the peer opened (for our own GOAWAY after a fatal error, §6.8).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var lastPeerStreamID: Int32 = 0
    /// The stream IDs the peer's HEADERS frames used, for the §5.1.1 order check (server role).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var peerStreamIDs = PeerStreamIDs()
    /// Streams we submitted RST_STREAM for whose frame has not been written: an RST_STREAM for
    /// any other stream was nghttp2's own decision (a `.streamError`).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var resetsWeSubmitted: Set<Int32> = []
    /// GOAWAYs we submitted and nghttp2 has not written, as (code, debug data).
    var goAwaysWeSubmitted: [(code: UInt32, debug: [UInt8])] = []
    /// Why nghttp2 found a received frame invalid (its `on_invalid_frame_recv`), by stream, for
    /// the `.streamError` or `.connectionError` reported when its RST_STREAM or GOAWAY is written.
    var invalidFrameReasons: [Int32: String] = [:]
    /// The last stream ID of the GOAWAY written for a connection error (nghttp2's, or ours after
    /// a fatal error): the highest stream of the peer's that may have been processed (RFC 9113
    /// §6.8). Set when `.connectionError` is reported; nil before.
    public internal(set) var connectionErrorLastStreamID: Int32?
    /// Received DATA payload that was never delivered as `.data` (its frame was rejected when it
    /// completed): the caller cannot `consumed` it, so we credit the connection window
    /// ourselves, outside the callbacks (§6.9.1: DATA counts against the window either way).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var undeliveredData = 0
    /// The peer's frame boundaries, for the header block still arriving: see
    /// ``unfinishedHeaderBlock`` (HTTP2Connection+Stalls.swift).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var headerBlocks: HeaderBlockTracker
    /// DATA payload octets written to the output so far (see ``dataOctetsSent``).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var sentDataOctets = 0

    /// Creates the connection and queues our SETTINGS (RFC 9113 §3.4: the server's preface is
    /// its SETTINGS; a client's preface is the magic string and SETTINGS, which
    /// `nghttp2_session_client_new` + `nghttp2_submit_settings` produce) and, when
    /// ``Limits/connectionWindowSize`` is above 65,535, the WINDOW_UPDATE that opens the
    /// connection window. Take them with ``takeOutput()``; a server may do so before the client
    /// preface arrives.
    /// Throws `invalid-limits` or `session-unavailable`.
    public init(role: Role, limits: Limits = Limits()) throws(HTTP2Error) {
        try limits.validate()
        self.role = role
        self.limits = limits
        headerBlocks = HeaderBlockTracker(role: role)
        session = try Self.makeSession(role: role, limits: limits)
        nghttp2_session_set_user_data(session, Unmanaged.passUnretained(self).toOpaque())
        try submitInitialSettings()
    }

    deinit {
        nghttp2_session_del(session)
    }

    /// A session with our callbacks and options. The callbacks and option objects are copied
    /// into the session by `nghttp2_session_*_new2`, so they are freed here; the class owns the
    /// session alone.
    private static func makeSession(role: Role, limits: Limits) throws(HTTP2Error) -> OpaquePointer {
        let unavailable = HTTP2Error(
            code: HTTP2Error.sessionUnavailable, message: "nghttp2 could not create an HTTP/2 session (out of memory).")
        var callbacksPointer: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacksPointer) == 0, let callbacks = callbacksPointer else {
            throw unavailable
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        installCallbacks(callbacks)

        var optionPointer: OpaquePointer?
        guard nghttp2_option_new(&optionPointer) == 0, let option = optionPointer else { throw unavailable }
        defer { nghttp2_option_del(option) }
        nghttp2_option_set_no_auto_window_update(option, 1)
        nghttp2_option_set_max_continuations(option, limits.maxContinuations)
        nghttp2_option_set_stream_reset_rate_limit(option, limits.resetBurst, limits.resetRatePerSecond)
        // A server keeps closed streams for RFC 7540's priority tree, as many as its own
        // SETTINGS_MAX_CONCURRENT_STREAMS; nghttp2 is never told ours (HTTP2Connection+Admission
        // .swift), so it kept every stream a connection ever had: about 220 bytes a request, for
        // the connection's life (RSS grew 3 MB a second under h2load). RFC 9113 §5.3 deprecates
        // that scheme and nothing here reads the tree.
        nghttp2_option_set_no_closed_streams(option, 1)

        var sessionPointer: OpaquePointer?
        let result =
            switch role {
            case .server: nghttp2_session_server_new2(&sessionPointer, callbacks, nil, option)
            case .client: nghttp2_session_client_new2(&sessionPointer, callbacks, nil, option)
            }
        guard result == 0, let session = sessionPointer else { throw unavailable }
        return session
    }

    /// Our SETTINGS (§6.5.2) and the connection window (§6.9.2).
    private func submitInitialSettings() throws(HTTP2Error) {
        func entry(_ identifier: nghttp2_settings_id, _ value: UInt32) -> nghttp2_settings_entry {
            nghttp2_settings_entry(settings_id: Int32(truncatingIfNeeded: identifier.rawValue), value: value)
        }
        // A server advertises its concurrency limit without telling nghttp2, which would make a
        // stream over it a connection error once acknowledged; we refuse the stream instead
        // (HTTP2Connection+Admission.swift). A client's limit is nghttp2's to keep.
        let concurrency =
            role == .client ? [entry(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, limits.maxConcurrentStreams)] : []
        let entries =
            concurrency + [
                entry(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, limits.initialWindowSize),
                entry(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, limits.maxHeaderListSize),
                // We never push and never accept pushes (§8.4); a server may only send 0 (§6.5.2).
                entry(NGHTTP2_SETTINGS_ENABLE_PUSH, 0),
            ]
        // A server takes extended CONNECT (RFC 8441 §3: WebSocket over HTTP/2); a client may not
        // send this setting.
        let extendedConnect = role == .server ? [entry(NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL, 1)] : []
        let none = UInt8(NGHTTP2_FLAG_NONE.rawValue)
        let all = entries + extendedConnect
        var result = nghttp2_submit_settings(session, none, all, all.count)
        if result == 0 {
            result = nghttp2_session_set_local_window_size(session, none, 0, limits.connectionWindowSize)
        }
        guard result == 0 else {
            throw HTTP2Error(
                code: HTTP2Error.submissionFailed,
                message: "nghttp2 refused our SETTINGS: \(Self.libraryText(result)).")
        }
    }

    // MARK: Bytes in

    /// Feeds bytes read from the socket; returns what happened, in order (events waiting from
    /// ``takeOutput()`` first). Call ``takeOutput()`` afterwards: the peer's frames usually need
    /// answers. A protocol violation is a value: `.streamError` or `.connectionError`, with the
    /// RST_STREAM or GOAWAY queued for ``takeOutput()``; never a crash. After the connection has
    /// failed, bytes are ignored.
    public func receive(_ bytes: UnsafeRawBufferPointer) -> [HTTP2Event] {
        if !failed, let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) {
            var offset = 0
            while offset < bytes.count {
                let processed = nghttp2_session_mem_recv(session, base + offset, bytes.count - offset)
                if processed < 0 {
                    pendingOutput += fail(libraryError: Int32(truncatingIfNeeded: processed))
                    break
                }
                // We never pause mem_recv, so it consumes everything; 0 would only repeat itself.
                if processed == 0 { break }
                headerBlocks.scan(UnsafeRawBufferPointer(start: base + offset, count: processed))
                offset += processed
            }
            creditUndeliveredData()
            flushAnswers()
        }
        return takeEvents()
    }

    /// Feeds bytes read from the socket; see ``receive(_:)-(UnsafeRawBufferPointer)``.
    public func receive(_ bytes: [UInt8]) -> [HTTP2Event] {
        bytes.withUnsafeBytes { receive($0) }
    }

    /// Moves the frames nghttp2 queued while receiving (not DATA) to `pendingOutput`, so its own
    /// RST_STREAM and GOAWAY decisions are reported now (see the theory of operation).
    private func flushAnswers() {
        guard !failed, pendingOutput.count < Self.controlFlushLimit else { return }
        pausingData = true
        defer { pausingData = false }
        let answers = drainSession()
        pendingOutput += answers
    }

    // MARK: Bytes out

    /// Everything to write now: our frames (SETTINGS, ACKs, WINDOW_UPDATE, HEADERS, DATA,
    /// RST_STREAM, GOAWAY), drained with `nghttp2_session_mem_send`. Empty when there is nothing.
    /// Call after every other method, when the socket can take bytes; then ``takeEvents()``.
    public func takeOutput() -> [UInt8] {
        creditUndeliveredData()
        var output = pendingOutput
        pendingOutput = []
        output += drainSession()
        return output
    }

    /// Gives the connection window back for ``undeliveredData``
    /// (`nghttp2_session_consume_connection`; nghttp2 sends the WINDOW_UPDATE when due).
    private func creditUndeliveredData() {
        guard !failed, undeliveredData > 0 else { return }
        _ = nghttp2_session_consume_connection(session, undeliveredData)
        undeliveredData = 0
    }

    /// Events that arose outside ``receive(_:)`` — while sending (a stream closed by our
    /// END_STREAM or RST_STREAM, `.windowAvailable`, a header block that could not be sent, a
    /// fatal error while sending) or during a submission. Call after ``takeOutput()``; events not
    /// taken lead the next ``receive(_:)``.
    public func takeEvents() -> [HTTP2Event] {
        let taken = events
        events = []
        return taken
    }

    /// `mem_send` until nghttp2 has nothing more; after a fatal error our GOAWAY ends the bytes.
    func drainSession() -> [UInt8] {
        var output: [UInt8] = []
        while !failed {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 {
                output += fail(libraryError: Int32(truncatingIfNeeded: count))
                break
            }
            guard count > 0, let data else { break }
            let frames = UnsafeBufferPointer(start: data, count: count)
            if !prefaceTaken && role == .server {
                output += advertisingConcurrencyLimit(inPreface: frames)
            } else {
                output.append(contentsOf: frames)
            }
            prefaceTaken = true
        }
        return output
    }

    /// There is something to write (`nghttp2_session_want_write`, or frames already taken from
    /// nghttp2): call ``takeOutput()`` when the socket can take bytes.
    public var wantsWrite: Bool {
        !pendingOutput.isEmpty || (!failed && nghttp2_session_want_write(session) != 0)
    }

    /// Neither side has anything more to say (`nghttp2_session_want_read` and `want_write` are
    /// both 0, or the session failed) and every byte has been taken: close the socket. True
    /// after a GOAWAY either way once no stream is active, and after a connection error once its
    /// GOAWAY has been taken.
    public var isFinished: Bool {
        guard pendingOutput.isEmpty else { return false }
        return failed || (nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0)
    }

    /// nghttp2's text for one of its `nghttp2_error` codes.
    static func libraryText(_ code: Int32) -> String {
        String(cString: nghttp2_strerror(code))
    }
}

@available(*, unavailable)
extension HTTP2Connection: Sendable {}
