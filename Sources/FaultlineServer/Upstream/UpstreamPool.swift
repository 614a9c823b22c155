import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlinePosix
import FaultlineProxy

/// Idle upstream connections kept alive for reuse, per endpoint, on one event loop.
///
/// A pooled connection is at a message boundary. While it waits here the pool is its delegate:
/// any byte of data, EOF or error from it means the upstream gave up on it, so it is dropped.
/// A TLS connection may still receive records that carry no data (TLS 1.3 session tickets,
/// RFC 8446 §4.6.1, often sent right after the handshake): those are consumed and it stays.
/// Connections idle longer than the idle timeout are closed by a periodic sweep.
final class UpstreamPool: StreamConnectionDelegate {
    private struct Entry {
        let channel: Channel
        let parkedAt: MonotonicInstant
        var connection: StreamConnection { channel.socket }
    }

    private let loop: EventLoop
    private let idleTimeout: Duration
    private let maximumPerEndpoint: Int
    // Loop-confined state the request path changes in place: release builds skip Swift's dynamic
    // exclusivity check on it, debug builds (every test) keep it (ARCHITECTURE.md, "Exclusivity").
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var idle: [UpstreamEndpoint: [Entry]] = [:]
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var endpointOf: [ConnectionID: UpstreamEndpoint] = [:]
    private var sweepScheduled = false

    init(loop: EventLoop, idleTimeout: Duration, maximumPerEndpoint: Int) {
        self.loop = loop
        self.idleTimeout = idleTimeout
        self.maximumPerEndpoint = maximumPerEndpoint
    }

    /// The most recently parked live connection to `endpoint` that `suits` the request, if any.
    func take(_ endpoint: UpstreamEndpoint, where suits: (Channel) -> Bool = { _ in true }) -> Channel? {
        loop.assertInEventLoop()
        // One look-up, the list changed in place (copying it on every take and put cost
        // O(idle connections)). An emptied list stays, so that the put at the end of the request
        // appends without allocating; the sweep drops lists left empty.
        var expired: [Entry] = []
        let taken = modifyEntries(of: endpoint) { entries -> Channel? in
            while let index = entries.lastIndex(where: { suits($0.channel) }) {
                let entry = entries.remove(at: index)
                if entry.channel.isUsable, entry.parkedAt.duration(to: loop.now) < idleTimeout {
                    return entry.channel
                }
                expired.append(entry)
            }
            return nil
        }
        for entry in expired {
            endpointOf[entry.connection.id] = nil
            entry.connection.delegate = nil
            entry.connection.close()
        }
        if let taken {
            endpointOf[taken.id] = nil
            taken.socket.delegate = nil
        }
        scheduleSweep()  // for the list this may have left empty
        return taken
    }

    /// Parks a connection that sits at a message boundary.
    func put(_ channel: Channel, for endpoint: UpstreamEndpoint) {
        loop.assertInEventLoop()
        let connection = channel.socket
        // A TLS session the server already closed (its close_notify can arrive in the same read
        // as the end of the response) must not carry the next request.
        guard channel.isUsable else {
            connection.delegate = nil
            connection.close()
            return
        }
        let entry = Entry(channel: channel, parkedAt: loop.now)
        let parked = modifyEntries(of: endpoint) { entries in
            guard entries.count < maximumPerEndpoint else { return false }
            entries.append(entry)
            return true
        }
        guard parked else {
            connection.delegate = nil
            connection.close()
            return
        }
        connection.delegate = self
        if connection.isReadingPaused { connection.setReadingPaused(false) }
        endpointOf[connection.id] = endpoint
        scheduleSweep()
    }

    /// Runs `body` on the endpoint's list of parked connections, in place, made empty if there
    /// was none. `body` must not call back into the pool.
    private func modifyEntries<Result>(
        of endpoint: UpstreamEndpoint, _ body: (inout [Entry]) -> Result
    ) -> Result {
        body(&idle[endpoint, default: []])
    }

    /// Closes every parked connection (server shutdown).
    func closeAll() {
        for entries in idle.values {
            for entry in entries {
                entry.connection.delegate = nil
                entry.connection.close()
            }
        }
        idle = [:]
        endpointOf = [:]
    }

    private func remove(_ connection: StreamConnection) {
        guard let endpoint = endpointOf.removeValue(forKey: connection.id) else { return }
        idle[endpoint]?.removeAll { $0.connection === connection }
        if idle[endpoint]?.isEmpty == true { idle[endpoint] = nil }
    }

    private func scheduleSweep() {
        guard !sweepScheduled else { return }
        sweepScheduled = true
        loop.scheduleTimer(after: idleTimeout) { [weak self] in
            guard let self else { return }
            self.sweepScheduled = false
            self.sweep()
        }
    }

    private func sweep() {
        let now = loop.now
        for (endpoint, entries) in idle {
            let (expired, live) = (
                entries.filter { $0.parkedAt.duration(to: now) >= idleTimeout },
                entries.filter { $0.parkedAt.duration(to: now) < idleTimeout }
            )
            for entry in expired {
                endpointOf[entry.connection.id] = nil
                entry.connection.delegate = nil
                entry.connection.close()
            }
            idle[endpoint] = live.isEmpty ? nil : live
        }
        if !idle.isEmpty { scheduleSweep() }
    }

    // MARK: StreamConnectionDelegate (parked connections only)

    func streamConnection(_ connection: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        if let endpoint = endpointOf[connection.id],
            let channel = idle[endpoint]?.first(where: { $0.connection === connection })?.channel, channel.tls != nil,
            channel.receive(bytes).isEmpty, channel.isUsable
        {
            return
        }
        // An idle HTTP/1.1 connection must not receive anything (RFC 9112 §9.3.1 leaves it to us).
        remove(connection)
        connection.delegate = nil
        connection.close()
    }

    func streamConnectionDidReadEOF(_ connection: StreamConnection) {
        remove(connection)
        connection.delegate = nil
        connection.close()
    }

    func streamConnectionDidDrainOutbound(_ connection: StreamConnection) {}

    func streamConnection(_ connection: StreamConnection, didCloseWith error: SystemError?) {
        remove(connection)
    }
}
