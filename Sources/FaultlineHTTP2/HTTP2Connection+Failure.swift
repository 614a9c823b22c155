import CNghttp2
import FaultlineCore

extension HTTP2Connection {
    /// nghttp2 returned a fatal error (`nghttp2_is_fatal`: below `NGHTTP2_ERR_FATAL`) from
    /// `mem_recv` or `mem_send`. After one, "the only allowed operation for that object is
    /// deallocate it", so the session is not called again and our GOAWAY (§6.8, §5.4.1) is
    /// written here. Returns the bytes to write: our connection preface first if nghttp2 never
    /// produced it (§3.4: SETTINGS must be the first frame), then the GOAWAY. Records
    /// `.connectionError`; no further events come for streams that were open.
    func fail(libraryError: Int32) -> [UInt8] {
        failed = true
        let (code, reason) = Self.fatalErrorMeaning(libraryError, limits: limits)
        connectionErrorLastStreamID = lastPeerStreamID
        events.append(.connectionError(code: code, reason: reason))
        streams.removeAll()
        var bytes: [UInt8] = []
        if !prefaceTaken {
            if role == .client { bytes += Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) }
            bytes += Self.frameHeader(length: 0, type: UInt8(NGHTTP2_SETTINGS.rawValue), flags: 0, stream: 0)
        }
        bytes += Self.goAwayFrame(lastStreamID: lastPeerStreamID, code: code, debug: Array(reason.utf8))
        return bytes
    }

    /// The GOAWAY code and the reason for a fatal nghttp2 error.
    static func fatalErrorMeaning(_ libraryError: Int32, limits: Limits) -> (HTTP2ErrorCode, String) {
        switch libraryError {
        case NGHTTP2_ERR_BAD_CLIENT_MAGIC.rawValue:
            (.protocolError, "The client's first bytes are not the HTTP/2 connection preface (RFC 9113 §3.4).")
        case NGHTTP2_ERR_TOO_MANY_CONTINUATIONS.rawValue:
            (
                .enhanceYourCalm,
                "More than \(limits.maxContinuations) CONTINUATION frames followed one HEADERS (CONTINUATION flood)."
            )
        case NGHTTP2_ERR_FLOODED.rawValue:
            (.enhanceYourCalm, "The peer made nghttp2 queue too many SETTINGS or PING acknowledgements (flood).")
        default:
            (.internalError, "nghttp2 failed: \(libraryText(libraryError)).")
        }
    }

    /// A frame header (RFC 9113 §4.1): 24-bit length, type, flags, 31-bit stream identifier.
    static func frameHeader(length: Int, type: UInt8, flags: UInt8, stream: Int32) -> [UInt8] {
        let id = UInt32(bitPattern: stream) & 0x7fff_ffff
        return [
            UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8),
            UInt8(truncatingIfNeeded: length), type, flags,
            UInt8(truncatingIfNeeded: id >> 24), UInt8(truncatingIfNeeded: id >> 16),
            UInt8(truncatingIfNeeded: id >> 8), UInt8(truncatingIfNeeded: id),
        ]
    }

    /// A GOAWAY frame (RFC 9113 §6.8): last stream ID, error code, debug data (cut to 256 bytes).
    static func goAwayFrame(lastStreamID: Int32, code: HTTP2ErrorCode, debug: [UInt8]) -> [UInt8] {
        let debug = debug.prefix(256)
        var frame = frameHeader(length: 8 + debug.count, type: UInt8(NGHTTP2_GOAWAY.rawValue), flags: 0, stream: 0)
        let last = UInt32(bitPattern: lastStreamID) & 0x7fff_ffff
        for value in [last, code.rawValue] {
            frame += [
                UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
                UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value),
            ]
        }
        frame += debug
        return frame
    }
}
