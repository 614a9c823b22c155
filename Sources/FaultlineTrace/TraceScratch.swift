/// A buffer an event is encoded in before `TraceRecorder` stamps and appends it, kept by the
/// caller for its thread (each event loop has one) so that recording on the hot path allocates
/// nothing. Noncopyable: one owner, one thread at a time.
public struct TraceScratch: ~Copyable, Sendable {
    var line: JSONOutput

    /// Capacity that covers a typical event (a request's headers) without growing.
    public init() {
        self.init(capacity: 4096)
    }

    init(capacity: Int) {
        line = JSONOutput(capacity: capacity)
    }

    /// Empties the buffer for the next event; after an unusually large one (a long header list)
    /// it drops back to the usual size, so a burst does not keep its memory for good.
    mutating func clear() {
        if line.capacity > 64 * 1024 {
            line = JSONOutput(capacity: 4096)
        } else {
            line.removeAll()
        }
    }
}
