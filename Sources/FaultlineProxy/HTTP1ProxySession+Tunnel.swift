import FaultlineCore
import FaultlineHTTP1
import FaultlineTrace

extension HTTP1ProxySession {
    /// The answer to a `CONNECT` whose tunnel is open (RFC 9110 §9.3.6: any 2xx).
    static let connectEstablished = Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)

    /// `CONNECT` reached its target: answer 200 and relay bytes unchanged from now on
    /// (RFC 9110 §9.3.6). Bytes the client sent early (a TLS ClientHello) go up first.
    mutating func openConnectTunnel(_ info: UpstreamConnectionInfo, _ output: inout SessionOutput) {
        guard let exchange else { return }
        if !exchange.connectAnswered {
            output.writeToClient(Self.connectEstablished)
            trace.record(
                .responseDelivered, connection: connectionID, flow: exchange.flow.id,
                [.int("status", 200), .bool("synthetic", true)])
        }
        enterTunnel(kind: .connect, upstream: info, &output)
        let early = clientHello + requestDecoder.takeBufferedBytes()
        clientHello = []
        if !early.isEmpty {
            tunnel?.bytesFromClient += Int64(early.count)
            output.writeToUpstream(early)
        }
        if clientReachedEOF {
            tunnel?.clientReachedEOF = true
            output.append(.shutdownUpstreamWrite)
        }
    }

    /// The upstream accepted an upgrade with 101: both sides now speak the new protocol
    /// (RFC 9110 §7.8), which the proxy relays unchanged.
    mutating func openUpgradeTunnel(_ output: inout SessionOutput) {
        guard case .connected(let info) = exchange?.upstream,
            let fromUpstream = exchange?.responseDecoder.takeBufferedBytes()
        else { return }
        enterTunnel(kind: .upgrade, upstream: info, &output)
        if !fromUpstream.isEmpty {
            tunnel?.bytesFromUpstream += Int64(fromUpstream.count)
            output.writeToClient(fromUpstream)
        }
        let fromClient = requestDecoder.takeBufferedBytes()
        if !fromClient.isEmpty {
            tunnel?.bytesFromClient += Int64(fromClient.count)
            output.writeToUpstream(fromClient)
        }
    }

    private mutating func enterTunnel(kind: Flow.Kind, upstream info: UpstreamConnectionInfo, _ output: inout SessionOutput) {
        guard let exchange else { return }
        var fields: [TraceField] = [
            .string("kind", kind.rawValue), .string("target", exchange.route.endpoint.hostHeaderValue),
            .int("upstream_conn", Int64(info.id.rawValue)), .string("upstream", info.remoteAddress),
        ]
        if let reason = exchange.tunnelReason {
            fields += [.bool("intercepted", false), .string("reason", reason)]
        }
        trace.record(.tunnelOpened, connection: connectionID, flow: exchange.flow.id, fields)
        output.append(.cancelTimer(.responseHead))
        tunnel = Tunnel(flow: exchange.flow.id, kind: kind)
        self.exchange = nil
        state = .tunnelling
    }

    /// Closes the tunnel once both sides have sent FIN.
    mutating func finishTunnelIfDone(_ output: inout SessionOutput) {
        guard let tunnel, tunnel.clientReachedEOF, tunnel.upstreamReachedEOF else { return }
        finishTunnel(&output, reason: "both-closed")
    }

    /// Traces the tunnel's byte counts and closes both connections.
    mutating func finishTunnel(_ output: inout SessionOutput, reason: String) {
        guard let tunnel else { return }
        trace.record(
            .tunnelClosed, connection: connectionID, flow: tunnel.flow,
            [
                .int("bytes_from_client", tunnel.bytesFromClient), .int("bytes_from_upstream", tunnel.bytesFromUpstream),
                .string("reason", reason),
            ])
        self.tunnel = nil
        output.append(.closeUpstream)
        if closeReason == nil { closeReason = "tunnel-closed" }
        state = .closing
        output.append(.closeClient(afterFlush: true))
    }
}
