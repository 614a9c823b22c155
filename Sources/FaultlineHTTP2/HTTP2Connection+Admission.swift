import CNghttp2
import FaultlineCore

// Which new streams of a client (server role) are taken: two checks nghttp2 makes differently
// from what a proxy wants.
//
// - Concurrency (RFC 9113 §5.1.2). nghttp2 refuses a stream over SETTINGS_MAX_CONCURRENT_STREAMS
//   with REFUSED_STREAM only until the client acknowledged our SETTINGS, and afterwards makes it
//   a connection error, which drops every stream in flight. §5.1.2 allows either; like nginx we
//   refuse the stream alone, which the client may retry (§8.7). nghttp2 has no option for it, so
//   it is never told the limit (it would enforce it first): the SETTINGS it writes get the entry
//   here, on their way out, and the limit is counted here.
// - Order (§5.1.1). A HEADERS on a client ID below one already used that never opened a stream
//   is a connection error, PROTOCOL_ERROR; nghttp2 ignores it (it cannot tell it from a late
//   HEADERS on a closed stream), ``PeerStreamIDs`` can.

extension HTTP2Connection {
    /// Whether a new request stream of the peer is taken. Server role: a stream that would be
    /// more than ``Limits/maxConcurrentStreams`` open at once (§5.1.2 counts open and
    /// half-closed streams: every stream nghttp2 has not closed) is reset with REFUSED_STREAM
    /// and reported as `.streamError`; nghttp2 closes it once the reset is written
    /// (`.streamClosed` follows). Called from `on_begin_headers`, so the reset is submitted only.
    func admitsNewStream(_ id: Int32) -> Bool {
        let limit = Int(limits.maxConcurrentStreams)
        guard role == .server, streams.count >= limit else { return true }
        if nghttp2_submit_rst_stream(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, HTTP2ErrorCode.refusedStream.rawValue) == 0
        {
            resetsWeSubmitted.insert(id)
        }
        events.append(
            .streamError(
                stream: id,
                reason:
                    "Stream \(id) is over SETTINGS_MAX_CONCURRENT_STREAMS (\(limit) open): refused with REFUSED_STREAM, which the client may retry (RFC 9113 §5.1.2, §8.7)."
            ))
        return false
    }

    /// Checks a HEADERS frame's stream ID against the IDs the peer used (server role; client
    /// IDs are odd, an even one is nghttp2's to refuse). One on an ID that was skipped ends the
    /// connection: GOAWAY PROTOCOL_ERROR naming the last stream processed, written after the
    /// current input (`nghttp2_session_terminate_session` queues it and ignores the rest of the
    /// input); `.connectionError` is reported when it is written, with the reason kept here.
    func checkStreamOrder(_ id: Int32) {
        guard role == .server, id > 0, id % 2 == 1, peerStreamIDs.headers(on: id) == .skipped else { return }
        invalidFrameReasons[0] =
            "HEADERS on stream \(id), below stream \(peerStreamIDs.highest) the client opened, where no stream was opened: stream IDs must increase (RFC 9113 §5.1.1)."
        _ = nghttp2_session_terminate_session(session, HTTP2ErrorCode.protocolError.rawValue)
    }

    /// Our server preface as nghttp2 wrote it (SETTINGS first, §3.4, without
    /// SETTINGS_MAX_CONCURRENT_STREAMS: see above), with that entry put first in the SETTINGS
    /// frame, so the client learns ``Limits/maxConcurrentStreams`` (§6.5.2). The client's ACK
    /// acknowledges the frame, not its entries, so nghttp2 is none the wiser.
    func advertisingConcurrencyLimit(inPreface bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        let headerLength = 9
        let length = bytes.count >= headerLength ? Int(bytes[0]) << 16 | Int(bytes[1]) << 8 | Int(bytes[2]) : -1
        // nghttp2 hands out one frame per `mem_send`: the first is the SETTINGS it was given.
        guard length == bytes.count - headerLength, bytes[3] == UInt8(NGHTTP2_SETTINGS.rawValue), bytes[4] == 0 else {
            assertionFailure("nghttp2's first frame is not our SETTINGS")
            return Array(bytes)
        }
        let value = limits.maxConcurrentStreams
        let entry: [UInt8] = [
            0, UInt8(truncatingIfNeeded: NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
            UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
            UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value),
        ]
        return Self.frameHeader(
            length: length + entry.count, type: bytes[3], flags: 0, stream: 0) + entry + bytes[headerLength...]
    }
}
