public import FaultlinePosix

/// How a `ReferenceBackend` behaves: where it listens, how long access tokens live, which
/// accounts refuse to log in, and its size limits.
///
/// Build one with the defaults and change what the test needs, e.g.
/// `BackendConfiguration(tokenLifetime: .seconds(1))`.
public struct BackendConfiguration: Sendable {
    /// Where to listen; port 0 picks a free port (`ReferenceBackend.start` returns the real one).
    public var address: SocketAddress
    /// How long an access token is accepted after it was issued (`expires_in` of the token
    /// response, rounded down to whole seconds). Zero issues tokens that are already expired.
    /// Refresh tokens and session cookies do not expire; they end with their family.
    public var tokenLifetime: Duration
    /// Accounts whose password login is refused with `invalid_grant`.
    public var lockedAccounts: Set<String>
    /// Event-loop threads when `start` creates its own group (ignored when given one).
    public var loopCount: Int
    /// Largest request body accepted; a bigger one is answered 413 and the connection closed.
    public var maximumBodyBytes: Int

    /// 127.0.0.1 on a free port, 300-second access tokens, account "locked" locked, one loop,
    /// bodies up to 1 MiB.
    public init(
        address: SocketAddress = .v4(.init(address: 0x7F00_0001, port: 0)),
        tokenLifetime: Duration = .seconds(300),
        lockedAccounts: Set<String> = ["locked"],
        loopCount: Int = 1,
        maximumBodyBytes: Int = 1 << 20
    ) {
        precondition(tokenLifetime >= .zero, "a token lifetime cannot be negative")
        precondition(loopCount > 0, "a backend needs at least one event loop")
        self.address = address
        self.tokenLifetime = tokenLifetime
        self.lockedAccounts = lockedAccounts
        self.loopCount = loopCount
        self.maximumBodyBytes = maximumBodyBytes
    }
}
