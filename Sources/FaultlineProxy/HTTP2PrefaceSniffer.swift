/// Tells an HTTP/2 client with prior knowledge from an HTTP/1.1 one on a plain listener by its
/// first bytes: h2c with prior knowledge opens with the connection preface
/// `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n` (RFC 9113 §3.4), which no HTTP/1.1 request starts with.
///
/// Feed it the client's reads until it decides; it keeps the bytes of earlier reads (fewer than
/// 24) so the chosen session gets them first, then the current read. An HTTP/1.1 request usually
/// differs at its first byte, so it costs nothing there.
public struct HTTP2PrefaceSniffer {
    /// What the client speaks, once known.
    public enum Verdict: Equatable {
        /// Every byte so far is a prefix of the preface: read more.
        case undecided
        /// Feed `held`, then the current read, to an HTTP/1.1 session.
        case http1(held: [UInt8])
        /// Feed `held`, then the current read, to an HTTP/2 session.
        case http2(held: [UInt8])
    }

    /// The HTTP/2 client connection preface (RFC 9113 §3.4).
    public static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    private var held: [UInt8] = []

    public init() {}

    /// Looks at the next read of the client.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) -> Verdict {
        let preface = Self.preface
        var matched = held.count
        for byte in bytes {
            guard matched < preface.count else { break }
            guard byte == preface[matched] else { return .http1(held: take()) }
            matched += 1
        }
        if matched == preface.count { return .http2(held: take()) }
        held.append(contentsOf: bytes)
        return .undecided
    }

    /// The client's input ended before the preface did: whatever it sent is HTTP/1.1's to judge.
    public mutating func receiveEOF() -> [UInt8] { take() }

    private mutating func take() -> [UInt8] {
        defer { held = [] }
        return held
    }
}
