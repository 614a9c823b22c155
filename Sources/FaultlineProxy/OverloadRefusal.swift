/// What a client connection accepted over the connection limit gets (`--max-connections`), from
/// its first bytes, sans-I/O: an HTTP/1 client a 503 with `Connection: close`, as nginx and
/// haproxy answer when they are full; an h2c client with prior knowledge (its preface, RFC 9113
/// §3.4) only the close, since an HTTP/1 answer means nothing to it and an HTTP/2 one would need
/// a whole session. Nothing of the connection reaches the rules or an upstream.
///
/// TLS listeners never get here: answering inside TLS would take a handshake, the costliest
/// part of a connection, so they are closed at once by the driver.
public struct OverloadRefusal {
    /// What to do with the connection.
    public enum Decision: Equatable {
        /// Too little to tell yet: read more (at most the 24 bytes of the HTTP/2 preface).
        case undecided
        /// Write `response`, then close (after draining what the client still sends, so the
        /// kernel does not answer its unread bytes with a reset that would destroy the 503).
        case answer(response: [UInt8])
        /// Close without a word; `detail` says why, for the trace.
        case close(detail: String)
    }

    /// The `X-Faultline-Error` code of the 503.
    public static let errorCode = "too-many-connections"

    private var sniffer = HTTP2PrefaceSniffer()
    private let limit: Int

    /// `limit`: the connection limit in force, for the 503's text.
    public init(limit: Int) {
        self.limit = limit
    }

    /// Looks at the next read of the client.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) -> Decision {
        switch sniffer.receive(bytes) {
        case .undecided: .undecided
        case .http1: .answer(response: Self.response(limit: limit))
        case .http2: .close(detail: "http2")
        }
    }

    /// The client's input ended before a decision: a partial request line still gets the 503
    /// (it may be reading), an empty connection only the close.
    public mutating func receiveEOF() -> Decision {
        sniffer.receiveEOF().isEmpty ? .close(detail: "no-request") : .answer(response: Self.response(limit: limit))
    }

    /// The 503 (RFC 9110 §15.6.4): `Connection: close` (RFC 9112 §9.6), `Retry-After: 1`
    /// (§10.2.3) and the short plain-text page of every error the proxy makes.
    public static func response(limit: Int) -> [UInt8] {
        let body = "faultline: too many connections (the limit is \(limit), --max-connections); try again later\n"
        let head = [
            "HTTP/1.1 503 Service Unavailable",
            "Content-Type: text/plain; charset=utf-8",
            "X-Faultline-Error: \(errorCode)",
            "Retry-After: 1",
            "Content-Length: \(body.utf8.count)",
            "Connection: close",
        ]
        return Array((head.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8)
    }
}
