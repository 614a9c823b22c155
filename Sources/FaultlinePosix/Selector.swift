/// Which readiness a registration wants to hear about.
struct SelectorInterest: OptionSet, Hashable {
    let rawValue: UInt8
    static let read = SelectorInterest(rawValue: 1)
    static let write = SelectorInterest(rawValue: 2)
    static let none: SelectorInterest = []
}

/// What the kernel reported for one registration in one wait.
struct ReadinessEvents: OptionSet {
    let rawValue: UInt8
    /// Bytes (or a pending connection, or EOF) can be read.
    static let readable = ReadinessEvents(rawValue: 1)
    /// The send buffer has room, or a non-blocking connect finished.
    static let writable = ReadinessEvents(rawValue: 2)
    /// Both directions are shut (epoll's EPOLLHUP); reads return what is left, then 0.
    static let hangup = ReadinessEvents(rawValue: 4)
    /// The socket has a pending error (read it with SO_ERROR or by reading/writing).
    static let error = ReadinessEvents(rawValue: 8)

    /// Events after which a write may make progress or report the failure (no array literal, so
    /// no allocation on the hot path).
    static var writeProgress: ReadinessEvents { ReadinessEvents(rawValue: 2 | 4 | 8) }
    /// Events after which a read may make progress or report the failure.
    static var readProgress: ReadinessEvents { ReadinessEvents(rawValue: 1 | 4 | 8) }
}

/// Names one registration: the descriptor plus a generation the event loop hands out.
///
/// The kernel echoes the token back with each event (in `epoll_event.data.u64` or `kevent.udata`).
/// Descriptor numbers are reused as soon as they are closed, so an event already read from the
/// kernel for a closed descriptor could otherwise reach the new owner of that number; the event
/// loop drops any event whose generation no longer matches the descriptor's current registration.
struct RegistrationToken: Hashable {
    var fd: Int32
    var generation: UInt32

    init(fd: Int32, generation: UInt32) {
        self.fd = fd
        self.generation = generation
    }

    /// The fd in the low 32 bits, the generation in the high 32 bits.
    init(rawValue: UInt64) {
        fd = Int32(bitPattern: UInt32(truncatingIfNeeded: rawValue))
        generation = UInt32(truncatingIfNeeded: rawValue >> 32)
    }

    var rawValue: UInt64 { UInt64(generation) << 32 | UInt64(UInt32(bitPattern: fd)) }

    /// Reserved for the selector's own wakeup descriptor; the loop never hands out generation 0.
    static func wakeup(fd: Int32) -> RegistrationToken { RegistrationToken(fd: fd, generation: 0) }
}

/// The readiness multiplexer behind an `EventLoop`: epoll on Linux (`EpollSelector`), kqueue on
/// Darwin (`KqueueSelector`).
///
/// Theory of operation:
/// - Registrations are level-triggered: an event repeats on every wait while the condition holds,
///   so a handler may stop early (fairness) and hear about the rest next time.
/// - An empty interest set is not registered at all (`remove`), because epoll reports
///   EPOLLHUP/EPOLLERR even for an empty mask and a paused, hung-up socket would spin the loop.
/// - `wakeup()` is the only method that may be called from any thread; everything else belongs to
///   the loop thread that owns the selector.
/// - The selector owns its wakeup descriptor and swallows its events; callers never see them.
protocol IOSelector: AnyObject {
    init() throws(SystemError)

    /// Starts watching `fd`. `interest` is not empty. `exclusive` asks the kernel to wake only one
    /// of the selectors watching the same descriptor (EPOLLEXCLUSIVE); backends without it ignore it.
    func add(fd: Int32, interest: SelectorInterest, token: RegistrationToken, exclusive: Bool) throws(SystemError)

    /// Changes the interest of a watched descriptor; both sets are non-empty.
    func modify(fd: Int32, from old: SelectorInterest, to new: SelectorInterest, token: RegistrationToken)
        throws(SystemError)

    /// Stops watching `fd`, which was added with `interest`. Call it before closing the descriptor.
    func remove(fd: Int32, interest: SelectorInterest) throws(SystemError)

    /// Blocks until at least one event, a wakeup, or `timeout` (nil: forever; zero: poll), then
    /// calls `body` once per ready registration. `body` may add, modify and remove registrations.
    func wait(timeout: Duration?, _ body: (RegistrationToken, ReadinessEvents) -> Void) throws(SystemError)

    /// Makes a current or the next `wait` return. Safe from any thread; cheap when repeated.
    func wakeup()

    /// Closes the selector and its wakeup descriptor. Loop thread, once, after the last wait.
    func close()
}

extension Duration {
    /// Whole milliseconds, rounded up so a timer never fires early, clamped to `Int32.max`.
    var millisecondsRoundedUp: Int32 {
        let (seconds, attoseconds) = components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
        if seconds >= Int64(Int32.max / 1000) { return Int32.max }
        let perMillisecond: Int64 = 1_000_000_000_000_000
        let millis = seconds * 1000 + (attoseconds + perMillisecond - 1) / perMillisecond
        return Int32(clamping: millis)
    }
}
