/// Which of the peer's stream IDs have been used, for RFC 9113 §5.1.1: a new stream's ID must be
/// above every stream the peer opened before, and opening stream N closes every idle stream below
/// it ("implicitly closed", never opened). A HEADERS on such an ID cannot open a stream: it is a
/// connection error of type PROTOCOL_ERROR. nghttp2 cannot tell it from a late HEADERS on a stream
/// that was opened and is gone (trailers crossing our RST_STREAM, §5.1 "closed"), so it ignores
/// both; this record tells them apart.
///
/// Clients open their streams in order (1, 3, 5, ...), so the record is usually just the highest
/// ID. IDs a client skipped are kept as ranges, at most ``maximumGaps`` of them: past that the
/// oldest are forgotten, and a HEADERS on a forgotten ID is treated as a late one (ignored, as
/// nghttp2 does) rather than remembering an unbounded list for a client that skips on purpose.
struct PeerStreamIDs {
    /// What a HEADERS frame on a peer-initiated stream ID is.
    enum Use: Equatable {
        /// Above every ID seen: it opens a new stream (or is refused by the concurrency limit).
        case new
        /// An ID that opened a stream before (open, closed or refused) or one no longer
        /// remembered: nghttp2's rules apply (a header block on an open stream, or ignored).
        case seen
        /// Below an opened stream and never used: it was implicitly closed (§5.1.1).
        case skipped
    }

    /// How many ranges of skipped IDs are remembered.
    static let maximumGaps = 256

    /// The highest ID a HEADERS frame used; 0 before the first.
    private(set) var highest: Int32 = 0
    /// Skipped IDs, as ranges of odd (client) or even IDs of the peer's parity, lowest first.
    private var gaps: [ClosedRange<Int32>] = []

    /// Classifies a HEADERS frame's stream ID and records a new one (its skipped predecessors
    /// become a gap). `id` is a peer-initiated ID (the caller checks the parity).
    mutating func headers(on id: Int32) -> Use {
        if id > highest {
            // The peer's IDs step by 2; the first of a peer is 1 (client) or 2 (server).
            let firstSkipped = highest == 0 ? (id % 2 == 1 ? 1 : 2) : highest + 2
            if firstSkipped <= id - 2 {
                gaps.append(firstSkipped...(id - 2))
                if gaps.count > Self.maximumGaps { gaps.removeFirst(gaps.count - Self.maximumGaps) }
            }
            highest = id
            return .new
        }
        return isSkipped(id) ? .skipped : .seen
    }

    /// Whether `id` lies in a remembered gap (binary search: gaps are disjoint and ascending).
    private func isSkipped(_ id: Int32) -> Bool {
        var low = 0
        var high = gaps.count
        while low < high {
            let middle = (low + high) / 2
            if gaps[middle].upperBound < id {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low < gaps.count && gaps[low].contains(id)
    }
}
