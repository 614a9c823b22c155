extension HTTP2Connection {
    /// What a connection advertises to its peer and enforces on it. The defaults suit a proxy's
    /// client side; tests use tiny values to reach the limits.
    public struct Limits: Sendable, Equatable {
        /// SETTINGS_MAX_CONCURRENT_STREAMS we advertise (RFC 9113 §5.1.2). Server role: a stream
        /// over it is refused (RST_STREAM REFUSED_STREAM, `.streamError`), before and after the
        /// peer acknowledged our SETTINGS, and the others go on (HTTP2Connection+Admission.swift;
        /// nghttp2 alone would make it a connection error once acknowledged). Client role:
        /// nghttp2 enforces it on pushed streams, which we refuse anyway (ENABLE_PUSH 0).
        public var maxConcurrentStreams: UInt32 = 100
        /// SETTINGS_MAX_HEADER_LIST_SIZE we advertise, and enforce on every received header block:
        /// names + values + 32 octets per field (§6.5.2). A block over it resets its stream with
        /// ENHANCE_YOUR_CALM and gives `.streamError` (a 431 is not possible after the reset).
        public var maxHeaderListSize: UInt32 = 64 * 1024
        /// SETTINGS_INITIAL_WINDOW_SIZE we advertise: how much each stream's peer may send before
        /// we call ``HTTP2Connection/consumed(stream:bytes:)`` (§6.9.2). At most 2^31-1.
        public var initialWindowSize: UInt32 = 1 << 20
        /// The connection's receive window (stream 0), set with
        /// `nghttp2_session_set_local_window_size` (a WINDOW_UPDATE right after SETTINGS when it
        /// is above the initial 65,535, §6.9.2). 1 to 2^31-1.
        public var connectionWindowSize: Int32 = 4 << 20
        /// Most CONTINUATION frames after one HEADERS (`nghttp2_option_set_max_continuations`);
        /// more is a CONTINUATION flood (CVE-2024-27316 class): `.connectionError`
        /// ENHANCE_YOUR_CALM.
        public var maxContinuations: Int = 8
        /// The token bucket for RST_STREAM frames the peer sends (server role only; rapid reset,
        /// CVE-2023-44487; `nghttp2_option_set_stream_reset_rate_limit`): `resetBurst` tokens,
        /// `resetRatePerSecond` refilled per second, one per RST_STREAM. An empty bucket makes
        /// nghttp2 send GOAWAY (INTERNAL_ERROR in nghttp2 1.52/1.57): `.connectionError`.
        public var resetBurst: UInt64 = 1000, resetRatePerSecond: UInt64 = 33

        public init() {}

        /// Throws `invalid-limits` for values HTTP/2 or nghttp2 cannot carry.
        func validate() throws(HTTP2Error) {
            func invalid(_ message: String) -> HTTP2Error {
                HTTP2Error(code: HTTP2Error.invalidLimits, message: message)
            }
            // SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1 is a FLOW_CONTROL_ERROR (§6.5.2).
            guard initialWindowSize <= UInt32(Int32.max) else {
                throw invalid("initialWindowSize \(initialWindowSize) is above 2^31-1 (RFC 9113 §6.5.2).")
            }
            guard connectionWindowSize >= 1 else {
                throw invalid("connectionWindowSize \(connectionWindowSize) is not positive.")
            }
            guard maxContinuations >= 0 else {
                throw invalid("maxContinuations \(maxContinuations) is negative.")
            }
            guard maxHeaderListSize > 0 else {
                throw invalid("maxHeaderListSize must be positive.")
            }
        }
    }
}
