import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineHTTP2
import FaultlinePosix
import FaultlineProxy
import FaultlineTLS
import FaultlineTrace

/// What the upstream connections of an owner's flows report: the owner is a client connection's
/// handler or a duplicate's, and feeds these to its sans-I/O session.
protocol UpstreamLinksOwner: AnyObject {
    func upstreamConnected(_ flow: FlowID, _ info: UpstreamConnectionInfo)
    func upstreamFailed(_ flow: FlowID, _ failure: UpstreamFailure)
    func upstreamRead(_ flow: FlowID, _ bytes: UnsafeRawBufferPointer)
    /// EOF or `close_notify`, told once per connection.
    func upstreamInputEnded(_ flow: FlowID)
    func upstreamClosed(_ flow: FlowID)
    /// The connection's outbound buffer emptied (backpressure may lift).
    func upstreamDrained(_ flow: FlowID)
}

/// The upstream connections of one owner's flows, by flow: taken from the loop's pool or opened
/// (resolve, connect, TLS), written to (paced when a throttle asks), pooled or closed when the
/// flow is done. Loop-confined, like its owner.
final class UpstreamLinks {
    /// One flow's upstream connection; the socket's delegate.
    final class Link: StreamConnectionDelegate {
        let flow: FlowID
        let channel: Channel
        let endpoint: UpstreamEndpoint
        var pacer: Pacer?
        var inputEnded = false
        /// Reading paused because the client side's outbound buffer is full.
        var pausedForBackpressure = false
        weak var links: UpstreamLinks?

        init(flow: FlowID, channel: Channel, endpoint: UpstreamEndpoint, links: UpstreamLinks) {
            self.flow = flow
            self.channel = channel
            self.endpoint = endpoint
            self.links = links
        }

        /// Bytes queued on the way up (socket buffer and pacer).
        var queuedBytes: Int { channel.socket.outboundBufferedBytes + (pacer?.queuedBytes ?? 0) }

        func streamConnection(_ connection: StreamConnection, didRead bytes: UnsafeRawBufferPointer) {
            guard let links else { return }
            if channel.tls != nil {
                links.tlsEvents(channel.receive(bytes), of: self)
            } else {
                links.owner?.upstreamRead(flow, bytes)
            }
        }

        func streamConnectionDidReadEOF(_ connection: StreamConnection) {
            guard let links else { return }
            // Without close_notify the codec's framing still tells a complete response from a
            // cut one, so a plain EOF is passed on like one on TCP.
            if channel.tls != nil { links.tlsEvents(channel.receiveEOF(), of: self) }
            if links.links[flow] === self { links.inputEnded(self) }
        }

        func streamConnectionDidDrainOutbound(_ connection: StreamConnection) {
            links?.owner?.upstreamDrained(flow)
        }

        func streamConnection(_ connection: StreamConnection, didCloseWith error: SystemError?) {
            guard let links, links.links[flow] === self else { return }
            links.detach(flow)
            links.owner?.upstreamClosed(flow)
        }
    }

    private let context: LoopContext
    weak var owner: (any UpstreamLinksOwner)?
    /// What to offer an `https` upstream in ALPN (RFC 7301).
    var alpn: [String]
    // Loop-confined state the request path changes in place: release builds skip Swift's dynamic
    // exclusivity check on it, debug builds (every test) keep it (ARCHITECTURE.md, "Exclusivity").
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var links = FlowTable<Link>()
    /// Flows answered from a recording (`ServerConfiguration.replay`) instead of a connection.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var replayLinks: [FlowID: ReplayLink] = [:]
    /// The flows whose connect is wanted, waiting or in flight, by flow; one table for both
    /// (each table a connection keeps is memory every idle connection carries).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var connects = FlowTable<WantedConnectState>()
    /// Connects asked for in the current loop iteration, in order; carried out after it
    /// (`startPending`), so a flow that ends in the same read (a stream reset right after its
    /// HEADERS) costs no connect and no pooled connection.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var pending: [(flow: FlowID, request: WantedConnect)] = []
    private var pendingScheduled = false
    /// Throttles asked for before the flow had a connection, by flow: the flow core paces a
    /// request before it opens its upstream, so the rate waits here for the connection.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var pendingRates: [FlowID: Int] = [:]
    private var nextGeneration = 0

    init(context: LoopContext) {
        self.context = context
        alpn = context.configuration.tls?.upstreamApplicationProtocols ?? []
    }

    var loopContext: LoopContext { context }

    func link(_ flow: FlowID) -> Link? { links[flow] }

    /// Every flow's connection, for backpressure decisions.
    var all: FlowTable<Link>.Values { links.values }

    /// Gets a connection for `flow`: from the pool unless `fresh`, else a new one; the owner hears
    /// `upstreamConnected` (at once for a pooled one) or `upstreamFailed`. `http1Only` keeps
    /// HTTP/2 out of it (ALPN and pool).
    func connect(_ flow: FlowID, to endpoint: UpstreamEndpoint, fresh: Bool, http1Only: Bool = false) {
        // A replay answers every flow itself and refuses tunnels, unless it may use the network.
        if let responder = context.configuration.replay, !(endpoint.scheme == "tcp" && responder.allowsNetwork) {
            replay(flow, to: endpoint, responder)
            return
        }
        connectToNetwork(flow, to: endpoint, fresh: fresh, http1Only: http1Only)
    }

    /// A connect asked for and not started yet.
    struct WantedConnect {
        let endpoint: UpstreamEndpoint
        let fresh: Bool
        let http1Only: Bool
        let generation: Int
    }

    /// A flow's wanted connect: its generation (bumped whenever a connect becomes unwanted, so a
    /// late completion is discarded) and, once it goes to the connector, its ticket there.
    private struct WantedConnectState {
        let generation: Int
        var ticket: UpstreamConnector.Ticket?
    }

    /// `connect` for a real connection: from the pool unless `fresh`, else a new one through
    /// the loop's `UpstreamConnector`; either once the current loop iteration is done.
    private func connectToNetwork(_ flow: FlowID, to endpoint: UpstreamEndpoint, fresh: Bool, http1Only: Bool) {
        nextGeneration += 1
        let generation = nextGeneration
        connects[flow] = WantedConnectState(generation: generation)
        pending.append(
            (flow, WantedConnect(endpoint: endpoint, fresh: fresh, http1Only: http1Only, generation: generation)))
        guard !pendingScheduled else { return }
        pendingScheduled = true
        context.loop.executeLocal { [weak self] in self?.startPending() }
    }

    /// The connects still wanted (a `close` since bumped or cleared the flow's generation).
    private func startPending() {
        pendingScheduled = false
        let requests = pending
        pending = []
        for (flow, request) in requests where connects[flow]?.generation == request.generation && owner != nil {
            start(flow, request)
        }
    }

    private func start(_ flow: FlowID, _ request: WantedConnect) {
        let (endpoint, http1Only, generation) = (request.endpoint, request.http1Only, request.generation)
        if !request.fresh, let pooled = context.pool.take(endpoint, where: { !http1Only || $0.http2 == nil }) {
            attach(pooled, flow: flow, endpoint: endpoint, reused: true, http1Only: http1Only)
            return
        }
        let offer = http1Only ? alpn.filter { $0 != HTTP2Connection.alpn } : alpn
        let connector = context.connector
        let ticket = connector.makeTicket()
        connects[flow]?.ticket = ticket
        connector.open(ticket, to: endpoint, alpn: offer) { [weak self] result in
            guard let self, self.connects[flow]?.generation == generation, let owner = self.owner else {
                if case .success(let channel) = result { channel.socket.close() }
                return
            }
            self.connects[flow] = nil
            switch result {
            case .success(let channel):
                self.attach(channel, flow: flow, endpoint: endpoint, reused: false, http1Only: http1Only)
            case .failure(let failure): owner.upstreamFailed(flow, failure)
            }
        }
    }

    /// Calls off the flow's connect, waiting or in flight.
    private func cancelConnect(_ flow: FlowID) {
        if let ticket = connects.removeValue(forKey: flow)?.ticket { context.connector.cancel(ticket) }
    }

    private func attach(_ channel: Channel, flow: FlowID, endpoint: UpstreamEndpoint, reused: Bool, http1Only: Bool) {
        var channel = channel
        // HTTP/2 by ALPN, or with prior knowledge on plain TCP when asked (h2c, RFC 9113 §3.3).
        let priorKnowledge =
            channel.tls == nil && endpoint.scheme == "http" && !http1Only
            && context.configuration.upstreamHTTP2PriorKnowledge
        let negotiated =
            channel.tls?.sessionInfo?.alpn ?? (priorKnowledge || channel.http2 != nil ? HTTP2Connection.alpn : nil)
        // A new HTTP/2 connection gets its session here; it stays with the channel, pool included.
        if negotiated == HTTP2Connection.alpn, channel.http2 == nil {
            channel.http2 = try? HTTP2UpstreamConnection(scheme: channel.tls == nil ? "http" : "https")
        }
        adopt(channel, flow: flow, endpoint: endpoint)
        let address = channel.socket.remoteAddressText ?? endpoint.hostHeaderValue
        owner?.upstreamConnected(
            flow,
            UpstreamConnectionInfo(
                id: channel.id, remoteAddress: address, reused: reused, applicationProtocol: negotiated,
                state: channel.http2))
    }

    /// Makes `channel` the flow's connection without telling the owner (a replayed flow sent on
    /// for real already heard `upstreamConnected`).
    func adopt(_ channel: Channel, flow: FlowID, endpoint: UpstreamEndpoint) {
        connects[flow] = nil
        let link = Link(flow: flow, channel: channel, endpoint: endpoint, links: self)
        links[flow] = link
        channel.socket.delegate = link
        if let rate = pendingRates.removeValue(forKey: flow) { throttle(flow, rate) }
    }

    /// Writes to the flow's connection (through its pacer when throttled); returns what is queued.
    @discardableResult
    func write(_ flow: FlowID, _ bytes: [UInt8]) -> Int {
        if let replayLink = replayLinks[flow] {
            replayWrite(replayLink, bytes)
            return 0
        }
        guard let link = links[flow] else { preconditionFailure("a flow wrote upstream without a connection") }
        if let pacer = link.pacer { pacer.enqueue(bytes) } else { link.channel.write(bytes) }
        return link.queuedBytes
    }

    /// The flow is done and its connection sits at a message boundary: back to the pool.
    func release(_ flow: FlowID) {
        if endReplay(flow, delivered: true) { return }
        cancelConnect(flow)
        guard let link = detach(flow) else { return }
        // Paced request bytes still queued mean the connection is mid-message.
        if (link.pacer?.queuedBytes ?? 0) > 0 {
            link.channel.socket.close()
        } else {
            context.pool.put(link.channel, for: link.endpoint)
        }
    }

    /// Closes the flow's connection, or calls off its pending connect.
    func close(_ flow: FlowID) {
        pendingRates[flow] = nil
        if endReplay(flow, delivered: false) { return }
        cancelConnect(flow)
        detach(flow)?.channel.socket.close()
    }

    func shutdownWrite(_ flow: FlowID) {
        links[flow]?.channel.shutdownWrite()
    }

    /// Starts, changes or ends pacing of the flow's upstream writes; before the flow has a
    /// connection, the rate is kept for the one it gets.
    func throttle(_ flow: FlowID, _ rate: Int?) {
        guard let link = links[flow] else {
            pendingRates[flow] = rate
            return
        }
        if let pacer = link.pacer {
            if let rate { pacer.setRate(rate) } else { pacer.finishWhenDrained { [weak link] in link?.pacer = nil } }
            return
        }
        guard let rate else { return }
        link.pacer = Pacer(loop: context.loop, bytesPerSecond: rate) { [weak link] bytes in link?.channel.write(bytes) }
    }

    /// Gives back the storage of the tables left empty by past flows (HTTP/2 streams; an HTTP/1
    /// connection's one flow at a time takes none). Called now and then for idle connections
    /// (`LoopContext`'s sweep).
    func releaseUnusedStorage() {
        _ = links.releaseUnusedStorage()
        _ = connects.releaseUnusedStorage()
        if pendingRates.isEmpty { pendingRates = [:] }
    }

    /// Closes every connection and calls off every pending connect (the owner is going away).
    func closeAll() {
        for flow in Array(replayLinks.keys) { endReplay(flow, delivered: false) }
        for flow in connects.flows { cancelConnect(flow) }
        pending = []
        pendingRates = [:]
        for flow in links.flows { close(flow) }
    }

    @discardableResult
    private func detach(_ flow: FlowID) -> Link? {
        guard let link = links.removeValue(forKey: flow) else { return nil }
        link.pacer?.cancel()
        link.pacer = nil
        link.channel.socket.delegate = nil
        if link.pausedForBackpressure { link.channel.socket.setReadingPaused(false) }
        link.links = nil
        return link
    }

    private func inputEnded(_ link: Link) {
        guard !link.inputEnded else { return }
        link.inputEnded = true
        owner?.upstreamInputEnded(link.flow)
    }

    /// What the upstream's TLS session produced.
    fileprivate func tlsEvents(_ events: [TLSEvent], of link: Link) {
        for event in events {
            // A response may end (and the connection go back to the pool) halfway through.
            guard links[link.flow] === link else { return }
            switch event {
            case .handshakeCompleted:
                continue
            case .plaintext(let bytes):
                bytes.withUnsafeBytes { owner?.upstreamRead(link.flow, $0) }
            case .closeNotify:
                inputEnded(link)
            case .failed(let error):
                if error.code == TLSError.unexpectedEOF { continue }
                context.trace.record(
                    .tlsFailed, connection: link.channel.id,
                    TLSTrace.failure(side: .upstream, code: error.code, message: error.description))
                detach(link.flow)
                link.channel.flush()  // the alert that tells the server why
                link.channel.socket.closeAfterFlush()
                owner?.upstreamClosed(link.flow)
                return
            }
        }
    }
}
