import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineRules
import FaultlineTrace

/// A `CONNECT` being connected or classified: it never reaches the flow core (there is no request
/// to apply rules to), only the tunnel or the interception after it.
///
/// Its path through `HTTP1ProxySession.State` (RFC 9110 §9.3.6); every failure ends in `closing`,
/// the client going away (`clientDidClose`, `shutDown`) in `closed` with the upstream closed:
///
/// ```
///   exchanging ──interception off, or host ignored──▶ connecting ──connected──▶ tunnelling
///       │                                              ▲   │       (200 sent now, unless sent early)
///       │ intercepted host: 200 sent now               │   └──failed──▶ closing
///       ▼                                              │       (502/504, or only the close after an early 200)
///   awaitingClientHello(hello) ────────────────────────┘
///       │    not TLS, SNI ignored, client silent: the hello bytes move into `clientHello`
///       ├ TLS ClientHello ──▶ closed (handed to interception with the hello bytes)
///       └ EOF before a whole hello, hello timeout ──▶ closing
/// ```
///
/// After the early answer a failed connection can only close the client: it already has its 200,
/// and a 502 would be read as tunnel bytes.
struct ConnectRequest {
    let flow: FlowID
    let endpoint: UpstreamEndpoint
    /// The proxy answered 200 before connecting (to read the ClientHello), so a failure can no
    /// longer be answered with an HTTP status.
    var answered = false
    /// With interception on: why this one is tunnelled instead (`ignored`, `not-tls`,
    /// `client-silent`).
    var tunnelReason: String?
    /// After an early answer: the client bytes read to classify them. They are the tunnel's first
    /// bytes, sent up before what waits in the request decoder.
    var clientHello: [UInt8] = []
}

/// A `CONNECT` or upgraded connection (HTTP/1.1), or stream (HTTP/2), relaying bytes unchanged
/// in both directions.
struct Tunnel {
    let flow: FlowID
    let kind: FlowKind
    var bytesFromClient: Int64 = 0
    var bytesFromUpstream: Int64 = 0
    var clientReachedEOF = false
    var upstreamReachedEOF = false

    /// The fields of `tunnel.opened`: its kind, target and upstream connection, and why it is not
    /// intercepted when interception is on.
    static func openedFields(
        kind: FlowKind, target: UpstreamEndpoint?, reason: String?, upstream info: UpstreamConnectionInfo?
    ) -> [TraceField] {
        var fields: [TraceField] = [.string("kind", kind.rawValue)]
        if let target { fields.append(.string("target", target.hostHeaderValue)) }
        if let info {
            fields += [.int("upstream_conn", Int64(info.id.rawValue)), .string("upstream", info.remoteAddress)]
        }
        if let reason { fields += [.bool("intercepted", false), .string("reason", reason)] }
        return fields
    }

    /// The fields of `tunnel.closed`: the byte counts and why.
    func closedFields(reason: String) -> [TraceField] {
        [
            .int("bytes_from_client", bytesFromClient), .int("bytes_from_upstream", bytesFromUpstream),
            .string("reason", reason),
        ]
    }
}

extension HTTP1ProxySession {
    /// The answer to a `CONNECT` whose tunnel is open (RFC 9110 §9.3.6: any 2xx).
    static let connectEstablished = Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)

    /// A `CONNECT` arrived: answer early to read the ClientHello (interception on), or connect.
    mutating func startConnect(_ id: FlowID, request: FlowRequest, _ output: inout SessionOutput) {
        output.trace(
            TraceEntry(
                .requestReceived, connection: connectionID, flow: id,
                FlowMachine.requestReceivedFields(request, routed: true)))
        var connect = ConnectRequest(flow: id, endpoint: request.endpoint)
        if let interception = configuration.interception {
            guard interception.intercepts(request.endpoint.host) else {
                connect.tunnelReason = "ignored"
                connectTarget(connect, &output)
                return
            }
            answerConnectEarly(connect, &output)
            return
        }
        connectTarget(connect, &output)
    }

    /// Asks for the connection to the `CONNECT` target; the tunnel opens when it is made.
    mutating func connectTarget(_ connect: ConnectRequest, _ output: inout SessionOutput) {
        state = .connecting(connect)
        output.append(.connectUpstream(connect.flow, connect.endpoint, fresh: false))
    }

    /// `CONNECT` reached its target: answer 200 and relay bytes unchanged from now on
    /// (RFC 9110 §9.3.6). Bytes the client sent early (a TLS ClientHello) go up first.
    mutating func openConnectTunnel(
        _ connect: ConnectRequest, _ info: UpstreamConnectionInfo, _ output: inout SessionOutput
    ) {
        if !connect.answered {
            output.writeToClient(Self.connectEstablished)
            output.trace(
                TraceEntry(
                    .responseDelivered, connection: connectionID, flow: connect.flow,
                    [.int("status", 200), .bool("synthetic", true)]))
        }
        enterTunnel(
            connect.flow, kind: .connect, target: connect.endpoint, reason: connect.tunnelReason, upstream: info,
            &output)
        let early = connect.clientHello + requestDecoder.takeBufferedBytes()
        if !early.isEmpty {
            updateTunnel { $0.bytesFromClient += Int64(early.count) }
            output.writeToUpstream(connect.flow, early)
        }
        if clientReachedEOF {
            updateTunnel { $0.clientReachedEOF = true }
            output.append(.shutdownUpstreamWrite(connect.flow))
        }
    }

    /// The `CONNECT` target cannot be reached: 502/504 if the client has had no answer yet.
    mutating func connectFailed(_ connect: ConnectRequest, _ failure: UpstreamFailure, _ output: inout SessionOutput) {
        output.trace(
            TraceEntry(
                .upstreamError, connection: connectionID, flow: connect.flow,
                failure.traceFields(reaching: connect.endpoint)))
        if connect.answered {
            close(&output, reason: "upstream-failed")
            return
        }
        answerWithErrorPage(
            status: failure.status, code: failure.code, message: failure.description, flow: connect.flow, &output)
        close(&output, reason: "upstream-failed")
    }

    /// The client went away while its `CONNECT` was being connected or classified.
    mutating func abortConnect(_ connect: ConnectRequest, _ output: inout SessionOutput, reason: String?) {
        if let reason {
            output.trace(
                TraceEntry(.flowAborted, connection: connectionID, flow: connect.flow, [.string("reason", reason)]))
        }
        output.append(.closeUpstream(connect.flow))
    }

    /// The upstream accepted an upgrade with 101: both sides now speak the new protocol
    /// (RFC 9110 §7.8), which the proxy relays unchanged.
    mutating func openUpgradeTunnel(target: UpstreamEndpoint?, _ output: inout SessionOutput) {
        guard let exchange, var codec = upstream else { return }
        let fromUpstream = codec.takeBufferedBytes()
        upstream = nil
        enterTunnel(exchange.flow, kind: .upgrade, target: target, reason: nil, upstream: codec.connection, &output)
        if !fromUpstream.isEmpty {
            updateTunnel { $0.bytesFromUpstream += Int64(fromUpstream.count) }
            output.writeToClient(fromUpstream)
        }
        let fromClient = requestDecoder.takeBufferedBytes()
        if !fromClient.isEmpty {
            updateTunnel { $0.bytesFromClient += Int64(fromClient.count) }
            output.writeToUpstream(exchange.flow, fromClient)
        }
    }

    private mutating func enterTunnel(
        _ id: FlowID, kind: FlowKind, target: UpstreamEndpoint?, reason: String?,
        upstream info: UpstreamConnectionInfo?,
        _ output: inout SessionOutput
    ) {
        output.trace(
            TraceEntry(
                .tunnelOpened, connection: connectionID, flow: id,
                Tunnel.openedFields(kind: kind, target: target, reason: reason, upstream: info)))
        state = .tunnelling(Tunnel(flow: id, kind: kind))
    }

    /// The open tunnel, if the connection is one.
    var tunnel: Tunnel? {
        if case .tunnelling(let tunnel) = state { return tunnel }
        return nil
    }

    /// Changes the open tunnel's counts in place (nothing when the connection is no tunnel).
    private mutating func updateTunnel(_ change: (inout Tunnel) -> Void) {
        guard case .tunnelling(var tunnel) = state else { return }
        change(&tunnel)
        state = .tunnelling(tunnel)
    }

    mutating func relayFromClient(_ bytes: UnsafeRawBufferPointer, _ output: inout SessionOutput) {
        guard let id = tunnel?.flow else { return }
        updateTunnel { $0.bytesFromClient += Int64(bytes.count) }
        output.writeToUpstream(id, bytes)
    }

    mutating func relayFromUpstream(_ bytes: UnsafeRawBufferPointer, _ output: inout SessionOutput) {
        updateTunnel { $0.bytesFromUpstream += Int64(bytes.count) }
        output.writeToClient(bytes)
    }

    mutating func tunnelClientEOF(_ output: inout SessionOutput) {
        guard let id = tunnel?.flow else { return }
        updateTunnel { $0.clientReachedEOF = true }
        output.append(.shutdownUpstreamWrite(id))
        finishTunnelIfDone(&output)
    }

    mutating func tunnelUpstreamEOF(_ output: inout SessionOutput) {
        updateTunnel { $0.upstreamReachedEOF = true }
        output.append(.shutdownClientWrite)
        finishTunnelIfDone(&output)
    }

    /// Closes the tunnel once both sides have sent FIN.
    private mutating func finishTunnelIfDone(_ output: inout SessionOutput) {
        guard let tunnel, tunnel.clientReachedEOF, tunnel.upstreamReachedEOF else { return }
        finishTunnel(&output, reason: "both-closed")
    }

    /// Traces the tunnel's byte counts and closes both connections.
    mutating func finishTunnel(_ output: inout SessionOutput, reason: String) {
        guard let tunnel else { return }
        output.trace(
            TraceEntry(.tunnelClosed, connection: connectionID, flow: tunnel.flow, tunnel.closedFields(reason: reason)))
        output.append(.closeUpstream(tunnel.flow))
        if closeReason == nil { closeReason = "tunnel-closed" }
        state = .closing
        output.append(.closeClient(afterFlush: true))
    }
}
