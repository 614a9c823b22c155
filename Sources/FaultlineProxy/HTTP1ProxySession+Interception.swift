import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineTLS
import FaultlineTrace

extension HTTP1ProxySession {
    /// `CONNECT` to a host the proxy may intercept: answer 200 before connecting anywhere, since
    /// only the client's next bytes (a ClientHello, and its SNI name) tell whether to terminate
    /// TLS or tunnel (mitmproxy answers the same way). The upstream is contacted afterwards, by
    /// the tunnel or by the first request inside TLS; its failures can then only close the client.
    mutating func answerConnectEarly(_ output: inout SessionOutput) {
        guard let connect else { return }
        output.writeToClient(Self.connectEstablished)
        output.trace(
            TraceEntry(
                .responseDelivered, connection: connectionID, flow: connect.flow,
                [.int("status", 200), .bool("synthetic", true)]))
        self.connect?.answered = true
        state = .awaitingClientHello
        clientHello = requestDecoder.takeBufferedBytes()
        armClientHelloTimer(&output)
        inspectClientHello(&output)
    }

    /// While the client has sent nothing, waits `silentClientTunnelDelay` for it (a protocol where
    /// the server speaks first, such as SSH or SMTP, never will); once bytes arrive, the whole
    /// ClientHello must arrive within `clientHelloTimeout`.
    mutating func armClientHelloTimer(_ output: inout SessionOutput) {
        let delay = clientHello.isEmpty ? configuration.silentClientTunnelDelay : configuration.clientHelloTimeout
        output.append(.setTimer(.clientIdle, delay))
    }

    /// The client's bytes after an early-answered `CONNECT`.
    mutating func receiveClientHelloBytes(_ bytes: UnsafeRawBufferPointer, _ output: inout SessionOutput) {
        guard !bytes.isEmpty else { return }
        let first = clientHello.isEmpty
        clientHello.append(contentsOf: bytes)
        if first { armClientHelloTimer(&output) }
        inspectClientHello(&output)
    }

    /// The `clientIdle` timer fired while waiting for the ClientHello.
    mutating func clientHelloTimerFired(_ output: inout SessionOutput) {
        if clientHello.isEmpty {
            tunnelAnsweredConnect(reason: "client-silent", &output)
        } else {
            clientHelloTimedOut(&output)
        }
    }

    /// Classifies the bytes after an early-answered `CONNECT` once there are enough of them.
    mutating func inspectClientHello(_ output: inout SessionOutput) {
        guard let connect, let interception = configuration.interception else { return }
        switch ClientHelloPeek.inspect(clientHello) {
        case .needMoreBytes:
            guard clientReachedEOF else { return }
            output.trace(
                TraceEntry(
                    .flowAborted, connection: connectionID, flow: connect.flow,
                    [.string("reason", "client closed the tunnel before its ClientHello was complete")]))
            self.connect = nil
            exchange = nil
            close(&output, reason: "client-closed")
        case .notTLS:
            tunnelAnsweredConnect(reason: "not-tls", &output)
        case .tls(let serverName, _) where serverName.map({ !interception.intercepts($0) }) ?? false:
            tunnelAnsweredConnect(reason: "ignored", &output)
        case .tls(let serverName, let alpn):
            output.append(.cancelTimer(.clientIdle))
            output.append(
                .interceptTLS(
                    TLSInterception(
                        flow: connect.flow, target: connect.endpoint, serverName: serverName,
                        offeredALPN: alpn, clientBytes: clientHello, clientReachedEOF: clientReachedEOF)))
            clientHello = []
            self.connect = nil
            exchange = nil
            closeReason = "intercepted"
            state = .closed
        }
    }

    /// The client started but did not finish its ClientHello in time.
    private mutating func clientHelloTimedOut(_ output: inout SessionOutput) {
        guard let connect else { return }
        output.trace(
            TraceEntry(
                .tlsFailed, connection: connectionID, flow: connect.flow,
                [
                    .string("side", "client"), .string("code", "handshake-timeout"),
                    .string(
                        "message",
                        "the client did not finish its ClientHello within \(configuration.clientHelloTimeout)"),
                ]))
        self.connect = nil
        exchange = nil
        close(&output, reason: "tls-handshake-timeout")
    }

    /// Tunnels an early-answered `CONNECT`: connect now, then relay `clientHello` and what follows.
    private mutating func tunnelAnsweredConnect(reason: String, _ output: inout SessionOutput) {
        output.append(.cancelTimer(.clientIdle))
        connect?.tunnelReason = reason
        state = .exchanging
        if let connect { output.append(.connectUpstream(connect.flow, connect.endpoint, fresh: false)) }
    }
}
