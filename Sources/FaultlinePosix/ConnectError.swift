/// Why `StreamConnection.connect` could not connect.
public struct ConnectError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure; compare with the static members.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case refused, unreachable, timedOut, failed, noAddresses, loopShutdown
        }

        private let base: Base

        /// Nothing listens at the address (ECONNREFUSED, or RST in answer to the SYN).
        public static let refused = Reason(base: .refused)
        /// No route to the network or host, or the address family is not usable here.
        public static let unreachable = Reason(base: .unreachable)
        /// The deadline passed (ours, or the kernel's ETIMEDOUT).
        public static let timedOut = Reason(base: .timedOut)
        /// Any other system error (see `lastError`).
        public static let failed = Reason(base: .failed)
        /// The address list was empty.
        public static let noAddresses = Reason(base: .noAddresses)
        /// The event loop shut down before the connect finished.
        public static let loopShutdown = Reason(base: .loopShutdown)

        /// The reason in words, as used in `ConnectError.description`.
        public var description: String {
            switch base {
            case .refused: "refused"
            case .unreachable: "unreachable"
            case .timedOut: "timed out"
            case .failed: "failed"
            case .noAddresses: "had no address to try"
            case .loopShutdown: "cancelled by event loop shutdown"
            }
        }

        /// The reason a system error from `connect` stands for.
        static func classify(_ error: SystemError) -> Reason {
            if error.isConnectionRefused { return .refused }
            if error.isUnreachable { return .unreachable }
            if error.isTimedOut { return .timedOut }
            return .failed
        }
    }

    /// What went wrong (for the last address tried, or the deadline).
    public let reason: Reason
    /// The system error of the last failed attempt, if any.
    public let lastError: SystemError?
    /// The last address tried, if any.
    public let lastAddress: SocketAddress?
    /// How many addresses were tried.
    public let attempts: Int

    /// The deadline passed (or the kernel timed the handshake out).
    public var isTimeout: Bool { reason == .timedOut }
    /// The last address refused the connection.
    public var isRefused: Bool { reason == .refused }
    /// The last address could not be reached.
    public var isUnreachable: Bool { reason == .unreachable }

    /// Builds an error; `StreamConnection.connect` does this, tests and fakes may too.
    public init(reason: Reason, lastError: SystemError?, lastAddress: SocketAddress?, attempts: Int) {
        self.reason = reason
        self.lastError = lastError
        self.lastAddress = lastAddress
        self.attempts = attempts
    }

    /// `"connect to 127.0.0.1:1 refused after 1 attempt: connect: Connection refused (errno 111)"`.
    public var description: String {
        var text = "connect"
        if let lastAddress { text += " to \(lastAddress)" }
        text += " \(reason) after \(attempts) attempt\(attempts == 1 ? "" : "s")"
        if let lastError { text += ": \(lastError)" }
        return text
    }
}
