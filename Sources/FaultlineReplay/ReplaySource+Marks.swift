import FaultlineServer
public import FaultlineTrace
import Foundation

/// Marks are recorded steps too: with `--order recorded` the source hears this run's marks from
/// the trace as they are written.
extension ReplaySource {
    /// Writes the capture's own warnings to `trace` (`replay.clock-backwards`), then subscribes
    /// to its marks when answers follow the recorded order. The observer runs on a recording
    /// thread, one line at a time in `seq` order: it reads the line, takes the source's own lock
    /// and never records.
    public func follow(_ trace: TraceRecorder) {
        for event in loadEvents { trace.record(event.kind, event.fields) }
        guard settings.order == .recorded else { return }
        _ = trace.addObserver { [weak self] line in
            guard let self, let label = Self.markLabel(line) else { return }
            self.marked(label)
        }
    }

    private static let markEvent = Array("\"event\":\"mark\"".utf8)

    /// The label of a `mark` line as the recorder writes it; nil for any other line, which is
    /// not parsed.
    static func markLabel(_ line: UnsafeBufferPointer<UInt8>) -> String? {
        guard line.count > markEvent.count,
            (0...(line.count - markEvent.count)).contains(where: {
                line[$0..<($0 + markEvent.count)].elementsEqual(markEvent)
            }),
            let event = try? TraceReader.parseEvent(
                line: String(decoding: line, as: UTF8.self).trimmingCharacters(in: .newlines), number: 0)
        else { return nil }
        return event.string("label")
    }
}
