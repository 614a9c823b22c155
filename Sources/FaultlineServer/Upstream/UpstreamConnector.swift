import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineHTTP2
import FaultlinePosix
import FaultlineProxy
import FaultlineTLS

/// Opens the new upstream connections of one event loop as its `UpstreamConnectGate` lets them:
/// a few at a time per origin and per loop, the rest in a bounded queue, so a burst of requests
/// (an HTTP/2 client opening and resetting streams, CVE-2023-44487) cannot become a burst of
/// connects that exhausts the proxy's descriptors or the origin's connection slots.
///
/// A connect called off while it waits never starts; one called off in flight goes on, and
/// the connection it makes is parked in the pool for the next flow instead of being thrown
/// away. A connect refused (queue full) fails with 503 `connect-queue-full`; one that waited
/// longer than the connect timeout, with 504 `connect-queue-timeout` (`upstream.error`).
/// Loop-confined, like `LoopContext`, which owns it.
final class UpstreamConnector {
    typealias Ticket = UpstreamConnectGate<UpstreamEndpoint>.Ticket
    typealias Completion = (Result<Channel, UpstreamFailure>) -> Void

    private struct Request {
        let endpoint: UpstreamEndpoint
        let alpn: [String]
        /// Nil once the connect is called off in flight: its connection goes to the pool.
        var completion: Completion?
    }

    private unowned let context: LoopContext
    private var gate: UpstreamConnectGate<UpstreamEndpoint>
    private var requests: [Ticket: Request] = [:]
    private var lastTicket: Ticket = 0
    private var expiryTimer: TimerHandle?

    init(context: LoopContext, limits: UpstreamConnectLimits) {
        self.context = context
        self.gate = UpstreamConnectGate(limits: limits)
    }

    /// Connects in flight and waiting, for tests and diagnostics.
    var inFlightCount: Int { gate.inFlightCount }
    var waitingCount: Int { gate.waitingCount }

    /// A ticket for `open`: the caller keeps it before `open` can complete (a refusal completes
    /// at once).
    func makeTicket() -> Ticket {
        lastTicket += 1
        return lastTicket
    }

    /// A new connection to `endpoint` (`LoopContext.openConnection`), now or once a place is
    /// free; `completion` runs once on this loop, unless the ticket is cancelled first.
    func open(_ ticket: Ticket, to endpoint: UpstreamEndpoint, alpn: [String], completion: @escaping Completion) {
        context.loop.assertInEventLoop()
        requests[ticket] = Request(endpoint: endpoint, alpn: alpn, completion: completion)
        carryOut(gate.request(ticket, to: endpoint, at: context.loop.now))
        armExpiry()
    }

    /// The flow no longer wants the connection: a waiting connect never starts; one in flight
    /// finishes into the pool. Its completion is not called.
    func cancel(_ ticket: Ticket) {
        if gate.cancel(ticket) {
            requests[ticket] = nil
        } else {
            requests[ticket]?.completion = nil
        }
    }

    private func carryOut(_ actions: [UpstreamConnectGate<UpstreamEndpoint>.Action]) {
        for action in actions {
            switch action {
            case .start(let ticket): start(ticket)
            case .refuse(let ticket): fail(ticket) { .connectQueueFull($0, self.gate.limits) }
            case .expire(let ticket):
                fail(ticket) { .connectQueueTimeout($0, self.context.configuration.connectTimeout) }
            }
        }
    }

    private func start(_ ticket: Ticket) {
        guard let request = requests[ticket] else { return }
        context.openConnection(to: request.endpoint, alpn: request.alpn) { [weak self] result in
            guard let self else {
                if case .success(let channel) = result { channel.socket.close() }
                return
            }
            let completion = self.requests.removeValue(forKey: ticket)?.completion
            self.carryOut(self.gate.finished(ticket))
            self.armExpiry()
            if let completion {
                completion(result)
            } else {
                self.park(result, endpoint: request.endpoint)
            }
        }
    }

    private func fail(_ ticket: Ticket, _ failure: (String) -> UpstreamFailure) {
        guard let request = requests.removeValue(forKey: ticket) else { return }
        request.completion?(.failure(failure(request.endpoint.hostHeaderValue)))
    }

    /// A connection nobody waits for any more: to the pool, where the next flow to the origin
    /// finds it (what a TLS handshake negotiated stays with it, as for a released connection).
    /// A raw tunnel's is closed: a tunnel wants a connection of its own.
    private func park(_ result: Result<Channel, UpstreamFailure>, endpoint: UpstreamEndpoint) {
        guard case .success(var channel) = result else { return }
        guard endpoint.scheme != "tcp" else {
            channel.socket.close()
            return
        }
        // As `UpstreamLinks.attach` does, so that a flow that must stay HTTP/1.1 does not take it.
        if channel.tls?.sessionInfo?.alpn == HTTP2Connection.alpn, channel.http2 == nil {
            channel.http2 = try? HTTP2UpstreamConnection(scheme: "https")
        }
        context.pool.put(channel, for: endpoint)
    }

    /// Waiting counts against the connect timeout: a timer for the connect that has waited
    /// longest.
    private func armExpiry() {
        guard expiryTimer == nil, let since = gate.oldestWaitingSince else { return }
        let timeout = context.configuration.connectTimeout
        let delay = context.loop.now.duration(to: since.advanced(by: timeout))
        expiryTimer = context.loop.scheduleTimer(after: delay) { [weak self] in
            guard let self else { return }
            self.expiryTimer = nil
            self.carryOut(self.gate.expire(at: self.context.loop.now, after: timeout))
            self.armExpiry()
        }
    }
}

extension UpstreamFailure {
    /// Too many new connections are being opened and waiting: 503, as for an overloaded proxy.
    static func connectQueueFull(_ target: String, _ limits: UpstreamConnectLimits) -> Self {
        .init(
            code: "connect-queue-full", status: 503,
            description: "too many new connections are being opened (\(limits.perOrigin) at once to \(target), "
                + "\(limits.perLoop) in all) and \(limits.queue) already wait for a place")
    }

    /// The connect waited for a place longer than the connect timeout.
    static func connectQueueTimeout(_ target: String, _ timeout: Duration) -> Self {
        .init(
            code: "connect-queue-timeout", status: 504,
            description: "waited \(timeout) for a place to connect to \(target) (too many connects in flight)")
    }
}
