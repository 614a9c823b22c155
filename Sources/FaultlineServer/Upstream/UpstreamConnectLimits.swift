/// How many new upstream connections one event loop opens at once, and how many more may wait
/// for a place (`UpstreamConnectGate`). A connection taken from the pool is no connect and is
/// never counted.
///
/// The defaults follow Envoy's circuit breakers (1,024 pending requests per cluster) for the
/// queue; the caps keep a burst of new streams from turning into a burst of SYNs: 32 connects
/// in flight per origin and loop open more than 10,000 connections a second on a LAN (a connect
/// takes well under 3 ms there), far more than an origin accepts, and with the default two
/// loops stay under nginx's default 512 `worker_connections` (64 per origin, 512 over every
/// origin).
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
