public import FaultlineHTTP1

/// How a replay runs: where the requests go, how fast, how long each may take, what is compared.
public struct ReplayOptions: Sendable {
    /// Where the requests go: scheme, host, port, and a path prefix put before every recorded path.
    public var target: UpstreamEndpoint
    /// Send the recorded `Host` instead of the target's authority (a virtual host behind an address).
    public var keepHost = false
    /// 1 as recorded, 2 twice as fast, 0 as fast as possible (per-connection order still kept).
    public var speed = 1.0
    /// The most one request may take, connecting included; also the longest a request waits for
    /// the live answer that issues its credentials.
    public var timeout: Duration = .seconds(30)
    /// Compare bodies too, not only statuses.
    public var comparesBodies = false
    /// Differences that still pass.
    public var allowedDifferences = 0

    public init(target: UpstreamEndpoint) {
        self.target = target
    }
}
