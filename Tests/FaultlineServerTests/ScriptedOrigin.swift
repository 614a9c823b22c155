import FaultlineCore
import FaultlineHTTP1
import FaultlinePosix
import Foundation
import Synchronization

/// A small HTTP/1.1 origin on its own event loop for server tests. `GET /hold` is parked until
/// the test calls `releaseHeld()`; every other request is answered at once with its path as body.
///
/// `@unchecked Sendable`: the mutable state (`connections`, `held`) is touched only on `loop`'s
/// thread (accept and delegate callbacks run there, and `releaseHeld` hops there with `execute`);
/// the counters are atomics.
final class ScriptedOrigin: @unchecked Sendable {
    let group: EventLoopGroup
    private var listener: Listener!
    private var connections: [ConnectionID: OriginConnection] = [:]
    private var held: [OriginConnection] = []
    let acceptedConnections = Atomic<Int>(0)
    let requestsServed = Atomic<Int>(0)
    let heldSignal = DispatchSemaphore(value: 0)

    init() throws {
        group = try EventLoopGroup(loopCount: 1, namePrefix: "test-origin")
        listener = try Listener(
            address: try SocketAddress(parsing: "127.0.0.1:0"), group: group, ids: IDGenerator()
        ) { [unowned self] connection in
            self.acceptedConnections.add(1, ordering: .relaxed)
            let origin = OriginConnection(connection: connection, server: self)
            self.connections[connection.id] = origin
            connection.delegate = origin
            connection.start()
        }
    }

    var port: Int { listener.localAddress.port }

    func hold(_ connection: OriginConnection) {
        held.append(connection)
        heldSignal.signal()
    }

    func forget(_ id: ConnectionID) { connections[id] = nil }

    /// Answers every parked request.
    func releaseHeld() {
        group.loops[0].execute { [self] in
            for connection in held { connection.respond(body: "released") }
            held = []
        }
    }

    func stop() {
        listener.stop()
        group.shutdown()
    }
}

final class OriginConnection: StreamConnectionDelegate {
    private let connection: StreamConnection
    private unowned let server: ScriptedOrigin
    private var decoder = HTTP1RequestDecoder()
    /// The target of the request being read (its body may come in later reads).
    private var path = ""

    init(connection: StreamConnection, server: ScriptedOrigin) {
        self.connection = connection
        self.server = server
    }

    func respond(body: String) {
        server.requestsServed.add(1, ordering: .relaxed)
        connection.write(Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
    }

    func streamConnection(_ connection: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
        decoder.receive(bytes)
        while let event = try? decoder.nextEvent() {
            switch event {
            case .head(let head): path = head.target
            case .body: break
            case .end:
                if path == "/hold" { server.hold(self) } else { respond(body: path) }
            }
        }
    }

    func streamConnectionDidReadEOF(_ connection: StreamConnection) { connection.close() }
    func streamConnectionDidDrainOutbound(_ connection: StreamConnection) {}
    func streamConnection(_ connection: StreamConnection, didCloseWith error: SystemError?) {
        server.forget(connection.id)
    }
}
