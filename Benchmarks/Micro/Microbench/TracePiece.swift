import FaultlineTrace

/// The trace writer: one request's entries (`request.received` with its headers, the
/// Authorization and Cookie fingerprinted by the default redaction, `request.forwarded`,
/// `response.received`, `response.delivered`) encoded into a `TraceRecorder` writing to
/// /dev/null, so its 64 KiB buffer flushes with a real write(2) as a trace file's would. The
/// entries are the ones the session produced for the fixture request, encoded in one
/// `TraceScratch` as an event loop's are.
struct TracePiece: Piece {
    static let name = "TraceRecorder"
    private let recorder: TraceRecorder
    private let entries: [TraceEntry]
    /// The loop's scratch buffer (a class holds it: the piece is copyable, the buffer is not).
    private final class Scratch {
        var buffer = TraceScratch()
    }
    private let scratch = Scratch()

    init(entries: [TraceEntry]) {
        do {
            recorder = try TraceRecorder(output: .file(path: "/dev/null"), flushInterval: .zero)
        } catch {
            fatalError("cannot open a trace on /dev/null: \(error)")
        }
        self.entries = entries
    }

    mutating func iterate() {
        for entry in entries { recorder.record(entry, encodingIn: &scratch.buffer) }
    }

    func failure(afterIterations count: Int) -> String? {
        let expected = UInt64(count * entries.count)
        return recorder.eventCount == expected ? nil : "\(recorder.eventCount) events recorded, \(expected) expected"
    }
}
