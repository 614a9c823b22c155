import FaultlineCore
import FaultlineFlow
import FaultlineHTTP1
import FaultlineHTTP2
import FaultlinePosix
import FaultlineProxy
import FaultlineTLS
import FaultlineTrace

/// TLS on either side of a client connection: terminating the client's TLS (interception and
/// TLS listeners) and turning the `TLSEvent`s of both channels into session inputs.
extension ClientConnectionHandler {
    /// Terminates TLS on the client connection from now on, presenting the certificate of the
    /// client's SNI name, else of `certificateHost`; the handshake must finish within the
    /// configured timeout. False (and the connection closing) if no TLS session can be made.
    @discardableResult
    func startClientTLS(certificateHost: String) -> Bool {
        guard let configuration = context.configuration.tls else {
            preconditionFailure("client TLS started on a server without a TLS configuration")
        }
        do {
            client.tls = try TLSConnection.server(context: configuration.serverContext, fallbackHost: certificateHost)
        } catch {
            clientTLSFailed(code: error.code, message: error.description)
            return false
        }
        let timeout = configuration.handshakeTimeout
        clientHandshakeTimer = context.loop.scheduleTimer(after: timeout) { [weak self] in
            guard let self else { return }
            self.clientHandshakeTimer = nil
            guard self.client.tls?.isHandshakeComplete == false else { return }
            self.clientTLSFailed(
                code: "handshake-timeout", message: "the client did not complete the TLS handshake in \(timeout)")
        }
        return true
    }

    /// The session found a ClientHello to intercept: terminate TLS with the bytes read so far and
    /// serve what it carries with a reverse-mode session to the SNI name (else the `CONNECT`
    /// host) over TLS, connecting to the `CONNECT` address.
    func intercept(_ interception: TLSInterception) {
        interceptedFlow = interception.flow
        guard startClientTLS(certificateHost: interception.certificateHost) else { return }
        // Offer upstream only what the client offered and we speak (none if it offered none).
        upstreams.alpn = (context.configuration.tls?.upstreamApplicationProtocols ?? []).filter(
            interception.offeredALPN.contains)
        // The requests inside are for the name the client asked for in SNI (the certificate it
        // accepted names it, so the upstream's must too), sent to the address it CONNECTed to.
        let target = interception.target
        let name = interception.certificateHost
        let upstream = UpstreamEndpoint(
            scheme: "https", host: name, port: target.port, connectHost: name == target.host ? nil : target.host)
        guard
            replaceSession(
                configuration: context.proxyConfiguration(
                    mode: .reverse(upstream), intercepting: false, keepsClientHost: true),
                http2: false)
        else { return }
        interception.clientBytes.withUnsafeBytes { clientTLSEvents(client.receive($0)) }
        if interception.clientReachedEOF, client.socket.isOpen {
            clientTLSEvents(client.receiveEOF())
            clientInputDidEnd()
        }
    }

    /// Feeds what the client's TLS session produced to the session.
    func clientTLSEvents(_ events: [TLSEvent]) {
        for event in events {
            switch event {
            case .handshakeCompleted(let info):
                if let clientHandshakeTimer { context.loop.cancelTimer(clientHandshakeTimer) }
                clientHandshakeTimer = nil
                guard let tls = client.tls else { return }
                var fields = TLSTrace.handshake(side: .client, info, connection: tls)
                // Says how the client's TLS got here: a CONNECT opened up, or a TLS listener.
                fields.append(.bool("intercepted", interceptedFlow != nil))
                context.trace.record(.tlsHandshake, connection: client.id, flow: interceptedFlow, fields)
                // The client chose h2 from what we offered (RFC 9113 §3.2): HTTP/2 from its first byte.
                if info.alpn == HTTP2Connection.alpn, !replaceSession(configuration: sessionConfiguration, http2: true)
                {
                    return
                }
            case .plaintext(let bytes):
                bytes.withUnsafeBytes { perform(session.clientDidRead($0), scope: .pausedOnly) }
            case .closeNotify:
                clientInputDidEnd()
            case .failed(let error):
                // A client closing without close_notify after the handshake is common and harmless
                // for HTTP/1.1, whose framing says whether a message is complete.
                if error.code == TLSError.unexpectedEOF, client.tls?.isHandshakeComplete == true { continue }
                clientTLSFailed(code: error.code, message: error.description)
                return
            }
        }
    }

    /// Tells the session, once, that the client will send nothing more.
    func clientInputDidEnd() {
        guard !clientInputEnded, client.socket.isOpen else { return }
        clientInputEnded = true
        perform(session.clientDidReadEOF())
    }

    /// Traces a client-side TLS failure (with what to do about an untrusted CA, also on the
    /// console) and closes the connection once the alert is out.
    private func clientTLSFailed(code: String, message: String) {
        var hint: String?
        if code == TLSError.clientRejectedCertificate, let configuration = context.configuration.tls {
            let hintText = TLSTrace.untrustedCAHint(configuration.authority)
            hint = hintText
            let host = client.tls?.certificateHost ?? "a host"
            configuration.notices.post("faultline: TLS for \(host) failed: \(hintText)")
        }
        context.trace.record(
            .tlsFailed, connection: client.id, flow: interceptedFlow,
            TLSTrace.failure(side: .client, code: code, message: message, hint: hint))
        closeReason = code == "handshake-timeout" ? "tls-handshake-timeout" : "tls-failed"
        if let clientHandshakeTimer { context.loop.cancelTimer(clientHandshakeTimer) }
        clientHandshakeTimer = nil
        client.flush()
        client.socket.closeAfterFlush()
    }
}
