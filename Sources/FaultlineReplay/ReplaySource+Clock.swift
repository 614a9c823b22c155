import FaultlineCapture
import FaultlineCore
import FaultlineServer
import FaultlineTrace
import Foundation

/// Which time an answer tells: the clock's readings for `ReplayClock` and `AnswerTimeShifter`.
extension ReplaySource {
    /// This run's time as `--clock`/`--now` read it, in nanoseconds since the epoch.
    func clockNow() -> Int64 {
        let wall = Int64((Date().timeIntervalSince1970 * 1_000_000_000).rounded())
        let elapsed = Int64(clamping: MonotonicInstant.now().nanoseconds &- startedAt.nanoseconds)
        return settings.clock.now(wall: wall, elapsed: elapsed)
    }

    /// When the recorded request went upstream (its receipt when the capture lacks that), in
    /// nanoseconds since the epoch; nil when the capture's wall time does not parse.
    static func recordedTime(of exchange: CapturedExchange) -> Int64? {
        RFC3339Date.nanoseconds(parsing: (exchange.forwarded ?? exchange.received).wall)
    }

    /// A shifter for `entry`'s answer given now.
    func timeShifter(for entry: Recorded, issued: [String]) -> AnswerTimeShifter {
        let offset = settings.clock.offset(recorded: Self.recordedTime(of: entry.exchange), now: clockNow())
        return AnswerTimeShifter(
            offset: offset, issued: Set(issued), credentialFields: Set(settings.secrets.secretBodyFields))
    }

    /// `replay.shifted` for what `shifter` moved; nil when nothing moved.
    func shiftedEvent(_ shifter: AnswerTimeShifter, _ entry: Recorded) -> ReplayTraceEvent? {
        guard !shifter.moved.isEmpty else { return nil }
        return ReplayTraceEvent(
            .replayShifted,
            [
                .int("recorded_flow", entry.exchange.flow), .string("clock", settings.clock.mode.description),
                .int("by_s", shifter.offset), .strings("fields", shifter.moved),
            ])
    }
}
