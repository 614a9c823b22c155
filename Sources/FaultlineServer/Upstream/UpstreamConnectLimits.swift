/// How many new upstream connections one event loop opens at once, and how many more may wait
/// for a place (`UpstreamConnectGate`). A connection taken from the pool is no connect and is
/// never counted.
///
/// The defaults: the queue is Envoy's default pending-request limit per cluster (1,024). The
/// caps keep a burst of new requests from becoming a burst of SYNs: 32 connects in flight per
/// origin and loop still open thousands of connections a second (a connect takes well under a
/// millisecond on a LAN), and with one loop per core a two-core machine has at most 64 connects
/// in flight to an origin, far below nginx's default 512 `worker_connections`. The per-loop cap
/// (256) bounds the descriptors that connects in flight hold over every origin.
public struct UpstreamConnectLimits: Sendable, Equatable {
    /// Connects in flight to one origin (scheme, host, port) on one loop (`--max-upstream-connects`).
    public var perOrigin: Int
    /// Connects in flight on one loop, over every origin.
    public var perLoop: Int
    /// Connects waiting for a place on one loop (`--upstream-connect-queue`); past it the flow
    /// gets 503 (`connect-queue-full`).
    public var queue: Int

    public init(perOrigin: Int = 32, perLoop: Int = 256, queue: Int = 1024) {
        self.perOrigin = perOrigin
        self.perLoop = perLoop
        self.queue = queue
    }
}
