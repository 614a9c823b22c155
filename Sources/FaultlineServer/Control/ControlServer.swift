import FaultlineCore
import FaultlinePosix

/// The control API's listener: accepts on the proxy's event loops and serves each connection with
/// a `ControlConnection` on the loop that owns it.
///
/// Started by `ProxyServer.start()` when a `ControlConfiguration` is given, stopped by
/// `ProxyServer.stop()`; connections still open then close with their loops.
final class ControlServer: Sendable {
    private let listener: Listener
    private let tables: [LoopBound<ControlConnectionTable>]

    /// The bound address (the real port when port 0 was asked for).
    var localAddress: SocketAddress { listener.localAddress }

    /// Binds `api.configuration.address` on every loop of `group`; throws the bind error.
    init(api: ControlAPI, group: EventLoopGroup) throws {
        let tables = group.loops.map { LoopBound(handingOff: ControlConnectionTable(), to: $0) }
        self.tables = tables
        // Control connections get their own IDs, so the proxy's connection numbers in the trace
        // stay dense.
        listener = try Listener(address: api.configuration.address, group: group, ids: IDGenerator()) { connection in
            guard let table = tables.first(where: { $0.loop === connection.loop }) else {
                preconditionFailure("control connection accepted on a loop outside the group")
            }
            table.value.accept(connection, api: api)
        }
    }

    /// Stops accepting and ends the streams (trace stream, web UI events) properly: a chunked one
    /// gets its last chunk, so its client can tell the proxy stopped from a broken connection.
    /// Call it once, while the loops still run (`ProxyServer.stop` does); it waits for them up
    /// to a second.
    func stop() {
        listener.stop()
        let latch = CountdownLatch(count: tables.count)
        for table in tables {
            table.loop.execute {
                table.value.endStreams()
                latch.countDown()
            }
        }
        _ = latch.wait(timeout: .seconds(1))
    }
}

/// The open control connections of one loop; keeps them alive until they close (a
/// `StreamConnection` holds its delegate weakly). Loop-thread confined.
final class ControlConnectionTable {
    private var connections: [ObjectIdentifier: ControlConnection] = [:]

    func accept(_ connection: StreamConnection, api: ControlAPI) {
        let control = ControlConnection(connection: connection, api: api) { [self] closed in
            connections[ObjectIdentifier(closed)] = nil
        }
        connections[ObjectIdentifier(control)] = control
        control.start()
    }

    /// Ends every stream of this loop's connections (the server is stopping).
    func endStreams() {
        for connection in connections.values { connection.endStream() }
    }
}
