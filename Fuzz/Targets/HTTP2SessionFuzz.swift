import FaultlineCore
import FaultlineHTTP2

/// `HTTP2Connection` fed a peer's raw bytes in pieces: as the server (a client's preface and
/// frames, as the proxy's h2 listener reads them) and as the client (an origin's frames after our
/// requests, as an h2 upstream reads them). Between pieces it answers the way a driver would
/// (heads, data, trailers, resets, credit for what it read, now and then a GOAWAY), the choice
/// drawn from the input, so the sending paths run against whatever state the peer made.
enum HTTP2SessionFuzz {
    static func runServer(_ input: UnsafeRawBufferPointer) {
        run(input, role: .server)
    }

    static func runClient(_ input: UnsafeRawBufferPointer) {
        run(input, role: .client)
    }

    private static func run(_ input: UnsafeRawBufferPointer, role: HTTP2Connection.Role) {
        let connection: HTTP2Connection
        do throws(HTTP2Error) {
            connection = try HTTP2Connection(role: role)
        } catch {
            fuzzCheck(false, "no connection: \(error)")
            return
        }
        var plan = SplitPlan(input, salt: 3)
        var checker = EventChecker()
        if role == .client { startRequests(connection, &plan) }
        checker.check(connection.takeEvents(), fed: 0)
        _ = connection.takeOutput()
        var fed = 0
        for piece in plan.pieces(input.count) {
            let events = connection.receive(UnsafeRawBufferPointer(rebasing: input[piece]))
            fed += piece.count
            checker.check(events, fed: fed)
            answer(events, connection, &plan)
            _ = connection.takeOutput()
            checker.check(connection.takeEvents(), fed: fed)
        }
        _ = connection.isFinished
    }

    /// A GET without a body and a POST with one, as `HTTP2UpstreamCodec` opens streams.
    private static func startRequests(_ connection: HTTP2Connection, _ plan: inout SplitPlan) {
        let get = [
            HTTP2Header(":method", "GET"), HTTP2Header(":scheme", "https"), HTTP2Header(":authority", "origin.test"),
            HTTP2Header(":path", "/a"),
        ]
        _ = try? connection.startRequest(headers: get, endStream: true)
        var post = get
        post[0] = HTTP2Header(":method", "POST")
        post.append(HTTP2Header("content-type", "application/json"))
        if let stream = try? connection.startRequest(headers: post, endStream: false) {
            connection.sendData(stream: stream, [UInt8]("{\"a\":1}".utf8)[...], endStream: plan.below(2) == 0)
        }
    }

    /// What a driver might do after `events`: the choice for each is drawn from `plan`.
    private static func answer(_ events: [HTTP2Event], _ connection: HTTP2Connection, _ plan: inout SplitPlan) {
        for event in events {
            switch event {
            case .headers(let stream, _, _):
                switch plan.below(5) {
                case 0:
                    connection.sendResponseHead(
                        stream: stream, headers: [HTTP2Header(":status", "103")], endStream: false)
                    connection.sendResponseHead(
                        stream: stream, headers: [HTTP2Header(":status", "204")], endStream: true)
                case 1:
                    connection.sendResponseHead(
                        stream: stream, headers: [HTTP2Header(":status", "200")], endStream: false)
                    connection.sendData(
                        stream: stream, [UInt8](repeating: 0x61, count: plan.below(40_000))[...], endStream: true)
                case 2:
                    connection.sendResponseHead(
                        stream: stream, headers: [HTTP2Header(":status", "200")], endStream: false)
                    connection.sendTrailers(stream: stream, headers: [HTTP2Header("grpc-status", "0")])
                case 3:
                    connection.reset(stream: stream, code: .cancel, afterQueuedData: plan.below(2) == 0)
                default:
                    connection.sendData(stream: stream, [0x62][...], endStream: false)
                }
            case .data(let stream, let bytes, _):
                connection.consumed(stream: stream, bytes: bytes.count)
                if plan.below(4) == 0 { connection.sendData(stream: stream, bytes[...], endStream: plan.below(2) == 0) }
            case .windowAvailable(let stream):
                connection.sendData(stream: stream, [], endStream: true)
            case .trailers, .streamReset, .streamClosed, .streamError, .settings, .goAway, .connectionError:
                break
            }
            _ = connection.bufferedOutboundBytes(stream: 1)
        }
        if plan.below(64) == 0 { connection.goAway(code: .noError) }
    }
}

/// What holds for any event sequence: stream events name a stream (ID > 0); a closed stream
/// gets no more heads or data; never more DATA payload than bytes received.
struct EventChecker {
    private var closed: Set<Int32> = []
    private var dataBytes = 0

    mutating func check(_ events: [HTTP2Event], fed: Int) {
        for event in events {
            switch event {
            case .headers(let stream, _, _), .trailers(let stream, _):
                fuzzCheck(stream > 0, "a head on stream \(stream)")
                fuzzCheck(!closed.contains(stream), "a head on closed stream \(stream)")
            case .data(let stream, let bytes, _):
                fuzzCheck(stream > 0, "data on stream \(stream)")
                fuzzCheck(!closed.contains(stream), "data on closed stream \(stream)")
                dataBytes += bytes.count
                fuzzCheck(dataBytes <= fed, "\(dataBytes) DATA bytes from \(fed) bytes received")
            case .streamClosed(let stream, _):
                fuzzCheck(stream > 0, "stream \(stream) closed")
                closed.insert(stream)
            case .streamReset(let stream, _), .streamError(let stream, _), .windowAvailable(let stream):
                fuzzCheck(stream > 0, "an event for stream \(stream)")
            case .settings, .goAway, .connectionError:
                break
            }
        }
    }
}
