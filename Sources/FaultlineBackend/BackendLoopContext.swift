import FaultlineCore
import FaultlinePosix

/// The backend's connections on one event loop: it keeps each `BackendConnection` alive (a
/// `StreamConnection` holds its delegate weakly) until the connection closes.
///
/// `@unchecked Sendable` because the listener's `@Sendable` accept callback carries it; its one
/// mutable member, `connections`, is touched only on `loop`'s thread (accept, close callbacks and
/// `closeAll` all run there; `assertInEventLoop` checks it in debug builds).
final class BackendLoopContext: @unchecked Sendable {
    let loop: EventLoop
    private let service: BackendService
    private var connections: [ConnectionID: BackendConnection] = [:]

    init(loop: EventLoop, service: BackendService) {
        self.loop = loop
        self.service = service
    }

    /// Starts serving a connection the listener accepted on this loop.
    func accept(_ connection: StreamConnection) {
        loop.assertInEventLoop()
        let handler = BackendConnection(connection: connection, service: service, context: self)
        connections[connection.id] = handler
        handler.start()
    }

    /// Forgets a closed connection.
    func remove(_ id: ConnectionID) {
        loop.assertInEventLoop()
        connections[id] = nil
    }

    /// Closes every connection of this loop (the backend is stopping).
    func closeAll() {
        loop.assertInEventLoop()
        for handler in Array(connections.values) { handler.close() }
        connections.removeAll()
    }
}
