import CNghttp2

/// Follows the peer's bytes frame by frame (RFC 9113 §4.1: a 9-octet header whose first three
/// octets are the payload's length, then the payload) to tell whether a header block is still
/// arriving: from the frame header of a HEADERS (or PUSH_PROMISE) to the last payload octet of
/// the frame that carries END_HEADERS, that frame itself or its last CONTINUATION (§4.3, §6.10).
///
/// nghttp2 cannot tell this. Its `on_begin_frame` sees a HEADERS frame's header, but nothing marks
/// the end of the frame's payload for a block it skips (a stream refused over the concurrency
/// limit, a stream already closed: nghttp2 decodes such a block for HPACK's sake and reports
/// nothing), and it skips `on_begin_frame` altogether for frames it ignores (DATA on a closed
/// stream), so its callbacks cannot be counted to find frame boundaries either. A trickled HEADERS
/// frame, one octet at a time, is a header block that has begun and not ended, as a CONTINUATION
/// that does not come is; only the frame boundaries tell both apart from a peer that is silent
/// between whole frames.
///
/// It reads nothing but frame headers (a payload is skipped by its length), so it costs a few
/// operations per frame. It only observes: nghttp2 still parses and judges every byte, and once
/// nghttp2 has failed or ends the connection, what this says no longer matters.
struct HeaderBlockTracker {
    /// Octets of the client connection preface (§3.4) still to skip (server role only).
    private var prefaceLeft: Int
    /// Octets of the current frame header read so far (0 between frames and inside a payload).
    private var headerRead = 0
    private var length = 0
    private var type: UInt8 = 0
    private var flags: UInt8 = 0
    /// Payload octets of the current frame still to come; the frame header is complete meanwhile.
    private var payloadLeft = 0
    /// How many header blocks have begun.
    private var blocksBegun = 0
    /// The number of the header block still arriving (numbered from 1 as they begin), nil when
    /// none is.
    private(set) var openBlock: Int?

    /// Starts before the peer's first byte: a server first skips the client's 24-octet preface.
    init(role: HTTP2Connection.Role) {
        prefaceLeft = role == .server ? Int(NGHTTP2_CLIENT_MAGIC_LEN) : 0
    }

    /// Follows `bytes`, the next octets the peer sent.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) {
        var index = 0
        let count = bytes.count
        while index < count {
            if prefaceLeft > 0 {
                let skipped = min(prefaceLeft, count - index)
                prefaceLeft -= skipped
                index += skipped
            } else if payloadLeft > 0 {
                let skipped = min(payloadLeft, count - index)
                payloadLeft -= skipped
                index += skipped
                if payloadLeft == 0 { frameEnded() }
            } else {
                let octet = bytes[index]
                index += 1
                switch headerRead {
                case 0...2: length = length << 8 | Int(octet)
                case 3: type = octet
                case 4: flags = octet
                default: break  // the stream identifier
                }
                headerRead += 1
                if headerRead == 9 { frameBegan() }
            }
        }
    }

    private mutating func frameBegan() {
        headerRead = 0
        switch UInt32(type) {
        case NGHTTP2_HEADERS.rawValue, NGHTTP2_PUSH_PROMISE.rawValue:
            blocksBegun += 1
            openBlock = blocksBegun
        default:
            break
        }
        payloadLeft = length
        length = 0
        if payloadLeft == 0 { frameEnded() }
    }

    /// The last payload octet of the current frame arrived: a header block frame with
    /// END_HEADERS ends its block.
    private mutating func frameEnded() {
        switch UInt32(type) {
        case NGHTTP2_HEADERS.rawValue, NGHTTP2_PUSH_PROMISE.rawValue, NGHTTP2_CONTINUATION.rawValue:
            if flags & UInt8(NGHTTP2_FLAG_END_HEADERS.rawValue) != 0 { openBlock = nil }
        default:
            break
        }
    }
}
