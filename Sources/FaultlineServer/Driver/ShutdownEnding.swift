/// How `ProxyServer.stop` ended the connections it let drain during the shutdown grace period.
public enum ShutdownEnding: Sendable, Equatable {
    /// Nothing was left open (or there was no grace period to wait through).
    case drained
    /// The grace period ran out; the connections still open were closed.
    case cutAtDeadline
    /// `ProxyServer.endShutdownGrace` (a second signal) ended the wait; the connections still
    /// open were closed.
    case cutEarly
}
