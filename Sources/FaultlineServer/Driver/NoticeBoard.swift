import Synchronization

/// Passes sentences meant for the person running the proxy to a printer, each distinct one once,
/// so that a client retrying a refused handshake a thousand times prints one line, not a thousand.
public final class NoticeBoard: Sendable {
    private let printer: @Sendable (String) -> Void
    private let seen = Mutex<Set<String>>([])

    /// `printer` is called from event-loop threads, at most once per distinct sentence.
    public init(_ printer: @escaping @Sendable (String) -> Void) {
        self.printer = printer
    }

    /// Distinct sentences remembered; past this many (a client inventing host names), nothing
    /// more is printed: the console has said enough, and memory stays bounded.
    public static let capacity = 1024

    /// Prints `sentence` unless it was printed before.
    public func post(_ sentence: String) {
        let fresh = seen.withLock { seen in
            guard seen.count < Self.capacity else { return false }
            return seen.insert(sentence).inserted
        }
        if fresh { printer(sentence) }
    }
}
