import Synchronization

/// How many client connections the server holds at once, over every loop and listener
/// (`ServerConfiguration.maximumConnections`, `--max-connections`): one atomic count, taken at
/// accept and given back when the connection's handler goes. Connections over the limit are
/// turned away (`RefusedConnectionHandler`); the few being answered that way have a small budget
/// of their own, so a flood cannot spend the descriptors the limit is there to keep.
final class ConnectionBudget: Sendable {
    /// Most client connections at once; nil: no limit (nothing is counted).
    let limit: Int?
    /// Most connections over the limit answered (a 503 written and drained) at once; past it
    /// they are closed at once.
    static let maximumRefusalsAnswering = 64

    private let open = Atomic<Int>(0)
    private let answering = Atomic<Int>(0)

    init(limit: Int?) {
        self.limit = limit
    }

    /// Takes a place for a new connection; false when the limit is reached. Pair a true with
    /// ``release()``.
    func admit() -> Bool {
        guard let limit else { return true }
        let (_, now) = open.add(1, ordering: .relaxed)
        guard now > limit else { return true }
        open.subtract(1, ordering: .relaxed)
        return false
    }

    /// Gives back the place of a connection ``admit()`` let in.
    func release() {
        guard limit != nil else { return }
        open.subtract(1, ordering: .relaxed)
    }

    /// Client connections held now (0 without a limit: nothing is counted).
    var openConnections: Int { open.load(ordering: .relaxed) }

    /// Takes a place for answering a connection over the limit; false when too many are being
    /// answered. Pair a true with ``endAnswering()``.
    func beginAnswering() -> Bool {
        let (_, now) = answering.add(1, ordering: .relaxed)
        guard now > Self.maximumRefusalsAnswering else { return true }
        answering.subtract(1, ordering: .relaxed)
        return false
    }

    func endAnswering() {
        answering.subtract(1, ordering: .relaxed)
    }

    /// The default limit for a process that may hold `openFiles` descriptors: half of what is
    /// left after a reserve (listeners, the trace, the control API, epoll and wake-up files,
    /// resolver threads, plus 1/32 of the limit as slack), since a proxied connection usually
    /// holds an upstream connection too. An HTTP/2 connection may hold more (one upstream
    /// connection per stream in flight); accepting pauses on EMFILE if they run out anyway.
    static func defaultLimit(openFiles: UInt64) -> Int {
        let files = Int(clamping: openFiles)
        let reserve = 32 + files / 32
        return max(1, (files - reserve) / 2)
    }
}
