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

    /// Prints `sentence` unless it was printed before.
    public func post(_ sentence: String) {
        guard seen.withLock({ $0.insert(sentence).inserted }) else { return }
        printer(sentence)
    }
}
