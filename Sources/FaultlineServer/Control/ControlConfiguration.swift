public import FaultlinePosix

/// Where the control API listens and the secret its callers must present.
///
/// Pass one to `ProxyServer.init(configuration:trace:ruleSet:control:)`; the server binds it at
/// `start()` beside the proxy listeners, on the same event loops.
public struct ControlConfiguration: Sendable {
    /// Usually `127.0.0.1:0` (an ephemeral port; `ProxyServer.controlAddress` tells the real one).
    public var address: SocketAddress
    /// Every call must carry `Authorization: Bearer <token>`, whatever the address. Never traced;
    /// `faultline run` prints it only when the API is reachable beyond loopback, where a caller
    /// (the host of a container) cannot read the control file.
    public var token: String
    /// The folder `POST /v1/rules/reload` loads; nil when the rules were not loaded from a folder
    /// (reload then answers 409).
    public var rulesDirectory: String?
    /// Request bodies larger than this are refused with 413.
    public var maximumBodyBytes: Int
    /// Bytes of trace lines a `GET /v1/trace/stream` client may fall behind before it is cut off.
    public var maximumStreamBacklog: Int
    /// Bytes of trace lines a web UI client may fall behind (beyond the history it was sent)
    /// before its lines are dropped and counted for it; a browser never slows the proxy, nor
    /// grows its memory past this.
    public var maximumUIBacklog: Int
    /// Bytes of the trace's recent past a web UI gets when it connects (read back from the trace
    /// file, or memory; none when the trace goes to standard output).
    public var uiHistoryBytes: Int

    /// True when `address` is not a loopback address (`0.0.0.0`, say): other machines can reach
    /// the API, and the token is all that guards holds, rules and state.
    public var isReachableBeyondLoopback: Bool { !address.isLoopback }

    /// A control listener on `address` that accepts `token`.
    public init(
        address: SocketAddress, token: String, rulesDirectory: String? = nil, maximumBodyBytes: Int = 64 * 1024,
        maximumStreamBacklog: Int = 8 * 1024 * 1024, maximumUIBacklog: Int = 1024 * 1024,
        uiHistoryBytes: Int = 4 * 1024 * 1024
    ) {
        self.address = address
        self.token = token
        self.rulesDirectory = rulesDirectory
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumStreamBacklog = maximumStreamBacklog
        self.maximumUIBacklog = maximumUIBacklog
        self.uiHistoryBytes = uiHistoryBytes
    }
}
