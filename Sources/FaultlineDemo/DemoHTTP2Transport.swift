import FaultlineCore
import FaultlineHTTP2
import FaultlinePosix

/// The demo's HTTP/2: h2c with prior knowledge (RFC 9113 §3.3) to the proxy's plain listener,
/// one connection for every stack of the client, each request a stream of it. So the concurrent
/// business requests of a race are concurrent streams of one connection, and a hold on one
/// stream leaves the others going.
///
/// An event loop of its own (one thread, started here, joined by ``close()``) owns the
/// connection (`DemoHTTP2Connection`); requests reach it with `execute` and come back through
/// continuations.
final class DemoHTTP2Transport: DemoTransport {
    private let loop: EventLoop
    private let connection: LoopBound<DemoHTTP2Connection>
    /// False once ``close()`` began: no task is handed to the loop after that, so none is dropped
    /// by its shutdown (a dropped task would leave its continuation waiting for ever).
    private let accepting = StateLock(true)

    /// A transport to the proxy's plain listener at `address`; the connection opens with the
    /// first request.
    init(address: SocketAddress) throws {
        loop = try EventLoop(name: "demo-h2")
        connection = LoopBound(handingOff: try DemoHTTP2Connection(address: address, loop: loop), to: loop)
        loop.start()
    }

    func exchange(_ request: DemoRequest) async throws -> DemoHTTPClient.Response {
        let connection = connection
        return try await withCheckedThrowingContinuation { continuation in
            let handed = accepting.withLock { accepting in
                if accepting { connection.loop.execute { connection.value.submit(request, completion: continuation) } }
                return accepting
            }
            if !handed {
                continuation.resume(
                    throwing: DemoHTTPClient.Failure(description: "the demo's HTTP/2 transport is closed"))
            }
        }
    }

    /// Sends GOAWAY, fails what is still in flight, closes the socket and joins the loop's thread.
    func close() async {
        let wasAccepting = accepting.withLock { accepting in
            defer { accepting = false }
            return accepting
        }
        guard wasAccepting else { return }
        let connection = connection
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            connection.loop.execute {
                connection.value.close()
                done.resume()
            }
        }
        loop.shutdown()
    }
}
