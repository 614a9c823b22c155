import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineHTTP2
import FaultlinePosix
import FaultlineProxy
import FaultlineTrace

/// Flows whose upstream is a recording (`faultline replay serve`): see `ReplayLink`.
extension UpstreamLinks {
    /// Starts a replayed upstream for `flow`. A tunnel (`CONNECT`, scheme `tcp`) cannot be
    /// replayed and would reach the network, so it fails unless the responder allows the network.
    func replay(_ flow: FlowID, to endpoint: UpstreamEndpoint, _ responder: any ReplayResponder) {
        guard endpoint.scheme != "tcp" else {
            owner?.upstreamFailed(
                flow,
                UpstreamFailure(
                    code: "replay-offline", status: 502,
                    description:
                        "a replay answers the HTTP it recorded and opens no tunnel to \(endpoint.hostHeaderValue) "
                        + "(start it with --unmatched forward to let traffic reach the network)"))
            return
        }
        let link = ReplayLink(flow: flow, endpoint: endpoint, id: ConnectionID(loopContext.ids.next()))
        replayLinks[flow] = link
        owner?.upstreamConnected(
            flow, UpstreamConnectionInfo(id: link.id, remoteAddress: responder.upstreamName, reused: false))
    }

    func replayWrite(_ link: ReplayLink, _ bytes: [UInt8]) {
        guard let responder = loopContext.configuration.replay else { return }
        let progress = link.receive(bytes)
        if link.owesContinue {
            // Not from inside this write: the owner is carrying out its session's actions.
            later(link.flow) { links, link in
                if let interim = link.takeContinue() {
                    interim.withUnsafeBytes { links.owner?.upstreamRead(link.flow, $0) }
                }
            }
        }
        switch progress {
        case .incomplete:
            return
        case .malformed(let error):
            // The flow's own codec wrote this request, so this is our bug in spirit; still a value.
            deliver(
                .unavailable(
                    UpstreamFailure(code: "replay-bad-request", status: 502, description: error.description), trace: []),
                to: link)
        case .complete(let request):
            if request.head.headers.contains(name: "upgrade") {
                deliver(
                    .unavailable(
                        UpstreamFailure(
                            code: "replay-upgrade", status: 501,
                            description:
                                "a replay cannot serve a connection upgrade (WebSocket) to \(link.endpoint.hostHeaderValue)"
                        ),
                        trace: []), to: link)
                return
            }
            let bound = LoopBound(self, on: loopContext.loop)
            let flow = link.flow
            let wait = responder.respond(to: request) { answer in
                // Any thread, any time: the answer reaches the flow on its own loop.
                bound.loop.execute {
                    let links = bound.value
                    guard let link = links.replayLinks[flow] else { return }
                    links.deliver(answer, to: link)
                }
            }
            if let wait, !link.answered {
                record(wait.trace, flow: flow)
                link.deadline = loopContext.loop.scheduleTimer(after: wait.deadline) { [weak self] in
                    guard self?.replayLinks[flow]?.answered == false else { return }
                    responder.expire(flow)
                }
            }
        }
    }

    /// Writes a responder's trace events on the flow, from this loop (never under its lock).
    private func record(_ events: [ReplayTraceEvent], flow: FlowID) {
        for event in events { loopContext.trace.record(event.kind, flow: flow, event.fields) }
    }

    /// Runs `work` on this loop after the current batch, if the flow still has its replayed upstream.
    private func later(_ flow: FlowID, _ work: @escaping (UpstreamLinks, ReplayLink) -> Void) {
        let bound = LoopBound(self, on: loopContext.loop)
        let task = LoopBound(work, on: loopContext.loop)
        bound.loop.execute {
            let links = bound.value
            guard let link = links.replayLinks[flow] else { return }
            task.value(links, link)
        }
    }

    /// Hands the answer to the flow as its upstream's bytes (or failure).
    func deliver(_ answer: ReplayAnswer, to link: ReplayLink) {
        guard !link.answered else { return }
        link.answered = true
        if let deadline = link.deadline { loopContext.loop.cancelTimer(deadline) }
        let events: [ReplayTraceEvent]
        switch answer {
        case .response(_, _, _, let trace), .unavailable(_, let trace), .forward(let trace): events = trace
        }
        record(events, flow: link.flow)
        switch answer {
        case .response(let head, let body, let trailers, _):
            let bytes = ReplayLink.encode(head, body: body, trailers: trailers)
            bytes.withUnsafeBytes { owner?.upstreamRead(link.flow, $0) }
        case .unavailable(let failure, _):
            replayLinks[link.flow] = nil
            owner?.upstreamFailed(link.flow, failure)
        case .forward:
            sendForReal(link)
        }
    }

    /// `--unmatched forward`: the request the flow wrote goes to the real upstream, on a new
    /// connection that then serves the flow like any other (the owner is not told twice).
    private func sendForReal(_ link: ReplayLink) {
        let flow = link.flow
        guard let raw = link.raw else {
            replayLinks[flow] = nil
            owner?.upstreamFailed(
                flow,
                UpstreamFailure(
                    code: "replay-too-large", status: 502,
                    description:
                        "the request is over \(ReplayLink.forwardableLimit) bytes, too large to send on after the replay did not match it"
                ))
            return
        }
        // The flow's codec already framed the request for HTTP/1.1 (the replay's connection).
        // Within the loop's connect caps like any new connection.
        let connector = loopContext.connector
        let alpn = alpn.filter { $0 != HTTP2Connection.alpn }
        connector.open(connector.makeTicket(), to: link.endpoint, alpn: alpn) { [weak self] result in
            guard let self, self.replayLinks[flow] === link else {
                if case .success(let channel) = result { channel.socket.close() }
                return
            }
            self.replayLinks[flow] = nil
            switch result {
            case .success(let channel):
                self.adopt(channel, flow: flow, endpoint: link.endpoint)
                channel.write(raw)
            case .failure(let failure):
                self.owner?.upstreamFailed(flow, failure)
            }
        }
    }

    /// Forgets a replayed flow's upstream; true when `flow` had one.
    @discardableResult
    func endReplay(_ flow: FlowID, delivered: Bool) -> Bool {
        guard let link = replayLinks.removeValue(forKey: flow) else { return false }
        if let deadline = link.deadline { loopContext.loop.cancelTimer(deadline) }
        loopContext.configuration.replay?.finished(flow, delivered: delivered && link.answered)
        return true
    }
}
