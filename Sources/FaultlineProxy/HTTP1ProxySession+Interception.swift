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
    mutating func answerConnectEarly(_ connect: ConnectRequest, _ output: inout SessionOutput) {
        output.writeToClient(Self.connectEstablished)
        output.trace(
            TraceEntry(
                .responseDelivered, connection: connectionID, flow: connect.flow,
                [.int("status", 200), .bool("synthetic", true)]))
        var connect = connect
        connect.answered = true
        // What came with the head is the start of the ClientHello (or of whatever the client speaks).
        let hello = requestDecoder.takeBufferedBytes()
        state = .awaitingClientHello(connect, hello: hello)
        armClientHelloTimer(helloStarted: !hello.isEmpty, &output)
        inspectClientHello(&output)
    }

    /// While the client has sent nothing, waits `silentClientTunnelDelay` for it (a protocol where
    /// the server speaks first, such as SSH or SMTP, never will); once bytes arrive, the whole
    /// ClientHello must arrive within `clientHelloTimeout`.
    mutating func armClientHelloTimer(helloStarted: Bool, _ output: inout SessionOutput) {
        let delay = helloStarted ? configuration.clientHelloTimeout : configuration.silentClientTunnelDelay
        output.append(.setTimer(.clientIdle, delay))
    }

    /// The client's bytes after an early-answered `CONNECT`.
    mutating func receiveClientHelloBytes(_ bytes: UnsafeRawBufferPointer, _ output: inout SessionOutput) {
        guard !bytes.isEmpty, case .awaitingClientHello(let connect, var hello) = state else { return }
        // A placeholder state while the bytes are appended leaves `hello` the only owner of its
        // storage, so it grows in place instead of being copied.
        state = .closed
        let first = hello.isEmpty
        hello.append(contentsOf: bytes)
        state = .awaitingClientHello(connect, hello: hello)
        if first { armClientHelloTimer(helloStarted: true, &output) }
        inspectClientHello(&output)
    }

    /// The `clientIdle` timer fired while waiting for the ClientHello.
    mutating func clientHelloTimerFired(_ output: inout SessionOutput) {
        guard case .awaitingClientHello(let connect, let hello) = state else { return }
        if hello.isEmpty {
            tunnelAnsweredConnect(connect, hello: hello, reason: "client-silent", &output)
        } else {
            clientHelloTimedOut(connect, &output)
        }
    }

    /// Classifies the bytes after an early-answered `CONNECT` once there are enough of them.
    mutating func inspectClientHello(_ output: inout SessionOutput) {
        guard case .awaitingClientHello(let connect, let hello) = state, let interception = configuration.interception
        else { return }
        switch ClientHelloPeek.inspect(hello) {
        case .needMoreBytes:
            guard clientReachedEOF else { return }
            output.trace(
                TraceEntry(
                    .flowAborted, connection: connectionID, flow: connect.flow,
                    [.string("reason", "client closed the tunnel before its ClientHello was complete")]))
            close(&output, reason: "client-closed")
        case .notTLS:
            tunnelAnsweredConnect(connect, hello: hello, reason: "not-tls", &output)
        case .tls(let serverName, _) where serverName.map({ !interception.intercepts($0) }) ?? false:
            tunnelAnsweredConnect(connect, hello: hello, reason: "ignored", &output)
        case .tls(let serverName, let alpn):
            output.append(.cancelTimer(.clientIdle))
            output.append(
                .interceptTLS(
                    TLSInterception(
                        flow: connect.flow, target: connect.endpoint, serverName: serverName,
                        offeredALPN: alpn, clientBytes: hello, clientReachedEOF: clientReachedEOF)))
            closeReason = "intercepted"
            state = .closed
        }
    }

    /// The client started but did not finish its ClientHello in time.
    private mutating func clientHelloTimedOut(_ connect: ConnectRequest, _ output: inout SessionOutput) {
        output.trace(
            TraceEntry(
                .tlsFailed, connection: connectionID, flow: connect.flow,
                [
                    .string("side", "client"), .string("code", "handshake-timeout"),
                    .string(
                        "message",
                        "the client did not finish its ClientHello within \(configuration.clientHelloTimeout)"),
                ]))
        close(&output, reason: "tls-handshake-timeout")
    }

    /// Tunnels an early-answered `CONNECT`: connect now, then relay the hello bytes and what
    /// follows. The hello moves into the `CONNECT`, so `connecting` keeps it until the tunnel opens.
    private mutating func tunnelAnsweredConnect(
        _ connect: ConnectRequest, hello: [UInt8], reason: String, _ output: inout SessionOutput
    ) {
        output.append(.cancelTimer(.clientIdle))
        var connect = connect
        connect.tunnelReason = reason
        connect.clientHello = hello
        connectTarget(connect, &output)
    }
}
