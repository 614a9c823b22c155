import FaultlineCapture

/// The entries of a capture whose recorded wall clock runs backwards: an entry received (by the
/// trace's `seq`, the recording's own order) at a wall time before an earlier entry's. A capture
/// made across a clock step (NTP, a VM resumed) has them; the replay still loads it, since its
/// order is `seq`'s, but `--clock shift` moves those entries' answers by a distance measured on a
/// clock that jumped, so the user is told which ones.
enum BackwardsClock {
    /// One entry received before the latest earlier one by the wall clock.
    struct Entry: Equatable, Sendable {
        let flow: Int64
        let wall: String
        /// The earlier entry (by `seq`) with the latest wall time so far.
        let afterFlow: Int64
        let afterWall: String

        var summary: String { "flow \(flow) at \(wall), after flow \(afterFlow) at \(afterWall)" }
    }

    /// The entries in `seq` order whose wall time is before the latest one received before them;
    /// entries whose wall time does not parse are skipped.
    static func entries(in capture: Capture) -> [Entry] {
        var latest: (flow: Int64, wall: String, nanoseconds: Int64)?
        var found: [Entry] = []
        for exchange in capture.exchanges.sorted(by: { $0.received.seq < $1.received.seq }) {
            guard let nanoseconds = RFC3339Date.nanoseconds(parsing: exchange.received.wall) else { continue }
            if let latest, nanoseconds < latest.nanoseconds {
                found.append(
                    Entry(
                        flow: exchange.flow, wall: exchange.received.wall, afterFlow: latest.flow,
                        afterWall: latest.wall))
            } else {
                latest = (exchange.flow, exchange.received.wall, nanoseconds)
            }
        }
        return found
    }
}
