import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineHTTP2
import FaultlineRules
import FaultlineTrace

/// A stream that became a tunnel: a `CONNECT` (RFC 9113 §8.5) once its TCP connection is up, or
/// an extended `CONNECT` for WebSocket (RFC 8441) once the origin answered the HTTP/1.1 upgrade
/// with 101. From then on DATA frames and upstream bytes are relayed unchanged; END_STREAM is a
/// FIN either way, and a broken TCP connection resets the stream with CONNECT_ERROR (§8.5).
extension HTTP2Stream {
    /// A `CONNECT`'s connection is up: 200 on the stream, then relay (and what the client sent
    /// before the 200 goes up first).
    func connectTunnelReady(_ info: UpstreamConnectionInfo, _ output: inout SessionOutput) {
        guard case .connecting(let target, let early) = role else {
            output.append(.closeUpstream(assignedFlow))
            return
        }
        connection.sendResponseHead(stream: streamID, headers: [HTTP2Header(":status", "200")], endStream: false)
        output.trace(
            TraceEntry(
                .responseDelivered, connection: connectionID, flow: assignedFlow,
                [.int("status", 200), .bool("synthetic", true)]))
        // Interception needs TLS on the connection itself; inside a stream the bytes pass untouched.
        let reason = configuration.interception == nil ? nil : "http2-connect"
        openTunnel(kind: .connect, target: target, reason: reason, upstream: info, &output)
        relayFromClient(early[...], endStream: requestEnded, &output)
    }

    /// A `CONNECT`'s target cannot be reached: 502/504 on the stream, as HTTP/1.1 answers it.
    func connectTunnelFailed(_ failure: UpstreamFailure, _ output: inout SessionOutput) {
        guard case .connecting(let target, _) = role else { return }
        role = .tunnelClosed
        output.trace(
            TraceEntry(
                .upstreamError, connection: connectionID, flow: assignedFlow, failure.traceFields(reaching: target)))
        let answer = ErrorResponse.make(status: failure.status, code: failure.code, message: failure.description)
        let fields = ClientResponseFields.make(from: answer.head.headers, length: .known(Int64(answer.body.count)))
        connection.sendResponseHead(
            stream: streamID, headers: HTTP2Headers.responseBlock(status: answer.status, fields: fields),
            endStream: false)
        connection.sendData(stream: streamID, answer.body[...], endStream: true)
        // As HTTP/1.1 traces the page it answers a failed CONNECT with.
        output.trace(
            TraceEntry(
                .responseDelivered, connection: connectionID, flow: assignedFlow,
                [.int("status", Int64(answer.status)), .bool("synthetic", true), .string("code", failure.code)]))
        ended = true
    }

    private func openTunnel(
        kind: FlowKind, target: UpstreamEndpoint?, reason: String?, upstream info: UpstreamConnectionInfo?,
        _ output: inout SessionOutput
    ) {
        output.trace(
            TraceEntry(
                .tunnelOpened, connection: connectionID, flow: assignedFlow,
                Tunnel.openedFields(kind: kind, target: target, reason: reason, upstream: info)))
        role = .tunnel(Tunnel(flow: assignedFlow, kind: kind))
    }

    /// The upgrade was accepted (the flow ended `tunnelled` after a 101 that went to the client as
    /// 200): bytes the origin sent after its 101 go down first, then what the client sent early
    /// goes up.
    func upgradeTunnelReady(target: UpstreamEndpoint?, _ output: inout SessionOutput) {
        let info = upstream?.connection
        let fromUpstream = upstream?.takeBufferedBytes() ?? []
        upstream = nil
        guard case .upgrading(let early, _) = role else { return }
        openTunnel(kind: .upgrade, target: target, reason: nil, upstream: info, &output)
        relayFromUpstream(fromUpstream[...])
        relayFromClient(early[...], endStream: requestEnded, &output)
    }

    /// DATA from the client: up the tunnel, kept until the `CONNECT`'s connection is up.
    func relayFromClient(_ bytes: ArraySlice<UInt8>, endStream: Bool, _ output: inout SessionOutput) {
        switch role {
        case .upgrading(let early, let accepted):
            role = .upgrading(early: early + bytes, accepted: accepted)
        case .connecting(let target, let early):
            role = .connecting(target, early: early + bytes)
        case .tunnel(var tunnel):
            tunnel.bytesFromClient += Int64(bytes.count)
            output.writeToUpstream(assignedFlow, bytes)
            let reachedEOF = endStream && !tunnel.clientReachedEOF
            if reachedEOF { tunnel.clientReachedEOF = true }
            role = .tunnel(tunnel)
            guard reachedEOF else { return }
            output.append(.shutdownUpstreamWrite(assignedFlow))
            finishTunnelIfDone(&output)
        case .exchange, .tunnelClosed:
            break
        }
    }

    func relayFromUpstream(_ bytes: ArraySlice<UInt8>) {
        guard case .tunnel(var tunnel) = role, !bytes.isEmpty else { return }
        tunnel.bytesFromUpstream += Int64(bytes.count)
        role = .tunnel(tunnel)
        connection.sendData(stream: streamID, bytes, endStream: false)
    }

    /// The upstream's FIN: END_STREAM to the client.
    func tunnelUpstreamEnded(_ output: inout SessionOutput) {
        guard case .tunnel(var tunnel) = role, !tunnel.upstreamReachedEOF else { return }
        tunnel.upstreamReachedEOF = true
        role = .tunnel(tunnel)
        connection.sendData(stream: streamID, [], endStream: true)
        finishTunnelIfDone(&output)
    }

    /// The upstream connection broke (or closed before its FIN): the stream is reset with
    /// CONNECT_ERROR after what was already relayed (RFC 9113 §8.5).
    func tunnelUpstreamClosed(_ output: inout SessionOutput) {
        guard case .tunnel(let tunnel) = role else { return }
        if !tunnel.upstreamReachedEOF {
            connection.reset(stream: streamID, code: .connectError, afterQueuedData: true)
        }
        finishTunnel(reason: "upstream-closed", &output)
    }

    /// The client reset or lost the stream.
    func tunnelClientGone(_ output: inout SessionOutput) {
        if case .connecting = role {
            role = .tunnelClosed
            ended = true
            output.append(.closeUpstream(assignedFlow))
            return
        }
        finishTunnel(reason: "client-reset", &output)
    }

    private func finishTunnelIfDone(_ output: inout SessionOutput) {
        guard case .tunnel(let tunnel) = role, tunnel.clientReachedEOF, tunnel.upstreamReachedEOF else { return }
        finishTunnel(reason: "both-closed", &output)
    }

    private func finishTunnel(reason: String, _ output: inout SessionOutput) {
        guard case .tunnel(let tunnel) = role else { return }
        output.trace(
            TraceEntry(.tunnelClosed, connection: connectionID, flow: assignedFlow, tunnel.closedFields(reason: reason))
        )
        role = .tunnelClosed
        ended = true
        output.append(.closeUpstream(assignedFlow))
    }

    /// A `CONNECT` waiting for its connection: upstream inputs are the tunnel's, not a flow's.
    var isConnecting: Bool {
        if case .connecting = role { return true }
        return false
    }

    /// The stream relays bytes: a tunnel open or being connected.
    var isTunnel: Bool {
        switch role {
        case .connecting, .tunnel: return true
        case .exchange, .upgrading, .tunnelClosed: return false
        }
    }

    /// The stream's DATA is not a request body but a tunnel's, now or once it opens.
    var carriesTunnelData: Bool {
        if case .exchange = role { return false }
        return true
    }

    /// An extended `CONNECT` still going through the flow core.
    var isUpgrading: Bool {
        if case .upgrading = role { return true }
        return false
    }

    /// An extended `CONNECT` whose 101 went to the client as 200: the stream stays open for the tunnel.
    var isAcceptedUpgrade: Bool {
        if case .upgrading(_, accepted: true) = role { return true }
        return false
    }

    /// An open relay: upstream bytes, FIN and closes are the tunnel's.
    var isRelaying: Bool {
        if case .tunnel = role { return true }
        return false
    }
}
