/// Carries a non-`Sendable` value across threads on the promise that it is used only on `loop`.
///
/// Used for callbacks that are created on a loop thread, parked in a cross-thread structure (a
/// resolver's waiter list, a listener's acceptor list) and later run back on that same loop.
///
/// `@unchecked Sendable`: the wrapped value is only reachable through `value`, which checks
/// `loop.inEventLoop` first (a precondition, active in release builds too), so it is only ever
/// touched by the one loop thread. `init` requires that thread as well, except for
/// `init(handingOff:to:)`, whose caller gives up its own access, and the loop's task queue lock
/// orders the hand-off before the first use on the loop.
public struct LoopBound<Value>: @unchecked Sendable {
    public let loop: EventLoop
    private let wrapped: Value

    /// Wraps `value`, which was created on `loop`'s thread (where this must be called).
    public init(_ value: Value, on loop: EventLoop) {
        loop.preconditionInEventLoop()
        self.loop = loop
        self.wrapped = value
    }

    /// Wraps a value that the calling thread built and will not touch again; from then on it is
    /// used only on `loop`.
    public init(handingOff value: Value, to loop: EventLoop) {
        self.loop = loop
        self.wrapped = value
    }

    /// The value; only on `loop`'s thread.
    public var value: Value {
        loop.preconditionInEventLoop()
        return wrapped
    }
}
