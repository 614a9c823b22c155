/// An HTTP/2 error code, as carried by RST_STREAM and GOAWAY frames (RFC 9113 §7).
///
/// A struct rather than an enum: a peer may send any 32-bit value, and "unknown or unsupported
/// error codes MUST NOT trigger any special behavior" (§7), so an unknown code is kept as it came.
public struct HTTP2ErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The 32-bit code as on the wire.
    public let rawValue: UInt32

    /// Any code, known or not.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Graceful shutdown, or a stream ended without a problem (0x0).
    public static let noError = HTTP2ErrorCode(rawValue: 0x0)
    /// The peer broke the protocol; also the catch-all (0x1).
    public static let protocolError = HTTP2ErrorCode(rawValue: 0x1)
    /// An unexpected internal error (0x2).
    public static let internalError = HTTP2ErrorCode(rawValue: 0x2)
    /// The peer violated flow control (0x3).
    public static let flowControlError = HTTP2ErrorCode(rawValue: 0x3)
    /// A SETTINGS frame was not acknowledged in time (0x4).
    public static let settingsTimeout = HTTP2ErrorCode(rawValue: 0x4)
    /// A frame arrived after the stream was half-closed (0x5).
    public static let streamClosed = HTTP2ErrorCode(rawValue: 0x5)
    /// A frame had an invalid size (0x6).
    public static let frameSizeError = HTTP2ErrorCode(rawValue: 0x6)
    /// The stream was refused before any application processing: safe to retry (0x7, §8.7).
    public static let refusedStream = HTTP2ErrorCode(rawValue: 0x7)
    /// The stream is no longer needed (0x8).
    public static let cancel = HTTP2ErrorCode(rawValue: 0x8)
    /// The HPACK compression context could not be kept (0x9).
    public static let compressionError = HTTP2ErrorCode(rawValue: 0x9)
    /// The connection of a CONNECT request was reset or closed abnormally (0xa).
    public static let connectError = HTTP2ErrorCode(rawValue: 0xa)
    /// The peer is generating excessive load (0xb).
    public static let enhanceYourCalm = HTTP2ErrorCode(rawValue: 0xb)
    /// The transport does not meet minimum security requirements (0xc).
    public static let inadequateSecurity = HTTP2ErrorCode(rawValue: 0xc)
    /// The request must be made over HTTP/1.1 (0xd).
    public static let http11Required = HTTP2ErrorCode(rawValue: 0xd)

    /// The codes RFC 9113 §7 names, in order.
    public static let named: [HTTP2ErrorCode] = (0...0xd).map { HTTP2ErrorCode(rawValue: $0) }

    /// The code RFC 9113 §7 calls `name` ("REFUSED_STREAM"); nil for any other text.
    public init?(name: String) {
        guard let code = Self.named.first(where: { $0.description == name }) else { return nil }
        self = code
    }

    /// The name RFC 9113 §7 gives the code, e.g. "PROTOCOL_ERROR"; "UNKNOWN_0x1f" for others.
    public var description: String {
        switch rawValue {
        case 0x0: "NO_ERROR"
        case 0x1: "PROTOCOL_ERROR"
        case 0x2: "INTERNAL_ERROR"
        case 0x3: "FLOW_CONTROL_ERROR"
        case 0x4: "SETTINGS_TIMEOUT"
        case 0x5: "STREAM_CLOSED"
        case 0x6: "FRAME_SIZE_ERROR"
        case 0x7: "REFUSED_STREAM"
        case 0x8: "CANCEL"
        case 0x9: "COMPRESSION_ERROR"
        case 0xa: "CONNECT_ERROR"
        case 0xb: "ENHANCE_YOUR_CALM"
        case 0xc: "INADEQUATE_SECURITY"
        case 0xd: "HTTP_1_1_REQUIRED"
        default: "UNKNOWN_0x" + String(rawValue, radix: 16)
        }
    }
}
