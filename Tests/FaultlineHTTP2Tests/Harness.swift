@testable import FaultlineHTTP2

/// A client-role and a server-role connection back to back in memory: ``pump()`` moves each
/// side's `takeOutput()` into the other's `receive` until neither has anything to write. No
/// sockets, no sleeps.
final class ConnectionPair {
    let client: HTTP2Connection
    let server: HTTP2Connection
    /// Every event each side produced so far, in order (from `receive` and `takeEvents`).
    private(set) var clientEvents: [HTTP2Event] = []
    private(set) var serverEvents: [HTTP2Event] = []
    /// Every frame each side wrote so far.
    private(set) var clientFrames: [Frame] = []
    private(set) var serverFrames: [Frame] = []
    /// Whether a side calls `consumed` for every `.data` it receives (flow-control tests turn
    /// it off to hold the window closed).
    var clientConsumes = true
    var serverConsumes = true

    init(client clientLimits: HTTP2Connection.Limits = .init(), server serverLimits: HTTP2Connection.Limits = .init())
        throws
    {
        client = try HTTP2Connection(role: .client, limits: clientLimits)
        server = try HTTP2Connection(role: .server, limits: serverLimits)
    }

    /// Moves bytes both ways until both sides are quiet; returns the events of this pump.
    @discardableResult
    func pump() -> (client: [HTTP2Event], server: [HTTP2Event]) {
        var newClient: [HTTP2Event] = []
        var newServer: [HTTP2Event] = []
        for _ in 0..<10_000 {
            let toServer = client.takeOutput()
            newClient += client.takeEvents()
            if !toServer.isEmpty {
                clientFrames += Frame.parse(toServer)
                let events = server.receive(toServer)
                newServer += events
                if serverConsumes { consume(events, on: server) }
            }
            let toClient = server.takeOutput()
            newServer += server.takeEvents()
            if !toClient.isEmpty {
                serverFrames += Frame.parse(toClient)
                let events = client.receive(toClient)
                newClient += events
                if clientConsumes { consume(events, on: client) }
            }
            if toServer.isEmpty, toClient.isEmpty { break }
        }
        clientEvents += newClient
        serverEvents += newServer
        return (newClient, newServer)
    }

    private func consume(_ events: [HTTP2Event], on connection: HTTP2Connection) {
        for case .data(let stream, let bytes, _) in events { connection.consumed(stream: stream, bytes: bytes.count) }
    }
}

extension [HTTP2Event] {
    /// The events about `stream`, in order.
    func about(_ stream: Int32) -> [HTTP2Event] {
        filter { event in
            switch event {
            case .headers(let id, _, _), .trailers(let id, _), .data(let id, _, _), .streamReset(let id, _),
                .streamClosed(let id, _), .streamError(let id, _), .windowAvailable(let id):
                id == stream
            case .settings, .goAway, .connectionError:
                false
            }
        }
    }

    /// The body bytes received on `stream`.
    func body(_ stream: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        for case .data(let id, let chunk, _) in self where id == stream { bytes += chunk }
        return bytes
    }

    /// The events about `stream` with every `.data` merged into one (split points differ with
    /// flow control) and `.windowAvailable` left out.
    func merged(_ stream: Int32) -> [HTTP2Event] {
        var result: [HTTP2Event] = []
        for event in about(stream) {
            switch event {
            case .windowAvailable:
                continue
            case .data(_, let bytes, let end):
                if case .data(_, let previous, false)? = result.last {
                    result[result.count - 1] = .data(stream: stream, bytes: previous + bytes, endStream: end)
                } else {
                    result.append(event)
                }
            default:
                result.append(event)
            }
        }
        return result
    }

    var connectionErrors: [HTTP2Event] {
        filter { if case .connectionError = $0 { true } else { false } }
    }

    var streamErrors: [Int32] {
        compactMap { if case .streamError(let id, _) = $0 { id } else { nil } }
    }
}

extension [Frame] {
    func ofType(_ type: UInt8) -> [Frame] { filter { $0.type == type } }
}

/// `[("name", "value")]` as header fields.
func fields(_ pairs: [(String, String)]) -> [HTTP2Header] {
    pairs.map { HTTP2Header($0.0, $0.1) }
}

func request(_ method: String, _ path: String, _ extra: [(String, String)] = []) -> [HTTP2Header] {
    fields([(":method", method), (":scheme", "https"), (":authority", "example.test"), (":path", path)] + extra)
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A server connection that has read the hand-built client preface, and what it answered.
func serverAfterPreface(_ limits: HTTP2Connection.Limits = .init()) throws -> HTTP2Connection {
    let server = try HTTP2Connection(role: .server, limits: limits)
    _ = server.receive(Frame.clientPreface)
    _ = server.takeOutput()
    return server
}
