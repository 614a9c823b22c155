import COpenSSL

/// Turning an OpenSSL failure into a ``TLSError`` a person can act on.
///
/// Order of questions: did one of our callbacks fail (no certificate)? did the client side's
/// certificate verification fail (chain, or name)? did the peer send a fatal alert (the error
/// queue reports alert N as reason 1000 + N, `SSL_AD_REASON_OFFSET`)? is the peer not speaking
/// TLS at all, or no common version or ALPN protocol? did the peer just close? Anything else keeps
/// OpenSSL's reason text.
extension TLSConnection {
    /// The error for an `SSL_get_error` result other than "want read/write". Drains the queue.
    func failure(sslError: Int32, duringHandshake: Bool) -> TLSError {
        let entries = OpenSSLErrorQueue.drain()
        if let callbackFailure { return callbackFailure }
        let reasons = Set(entries.filter { $0.library == ERR_LIB_SSL }.map(\.reason))
        let summary = OpenSSLErrorQueue.summary(entries)

        if case .client(let context, _, let expected) = role, context.verify,
            reasons.contains(SSL_R_CERTIFICATE_VERIFY_FAILED)
        {
            return verificationError(expected: expected)
        }
        if let alert = entries.lazy.compactMap(Self.alert(in:)).first {
            return alertError(alert, duringHandshake: duringHandshake)
        }
        if duringHandshake, !reasons.isDisjoint(with: Self.notTLSReasons) {
            return TLSError(
                code: TLSError.notTLS,
                description: isServer
                    ? "The client's bytes are not TLS (\(summary)); it may have sent plain HTTP where TLS was expected."
                    : "The reply from \(peerName) is not TLS (\(summary)); it may speak plain HTTP on this port.")
        }
        if !reasons.isDisjoint(with: Self.versionReasons) {
            return TLSError(
                code: TLSError.unsupportedProtocolVersion,
                description: "\(peerName.capitalizedFirst) and Faultline share no TLS version (\(summary)); "
                    + "Faultline speaks TLS 1.2 and 1.3.")
        }
        if reasons.contains(SSL_R_NO_APPLICATION_PROTOCOL) {
            return noApplicationProtocolError()
        }
        let closed =
            reasons.contains(SSL_R_UNEXPECTED_EOF_WHILE_READING) || (sslError == SSL_ERROR_SYSCALL && entries.isEmpty)
        if closed { return closedError(duringHandshake: duringHandshake) }
        if duringHandshake {
            return TLSError(
                code: TLSError.handshakeFailed, description: "The TLS handshake with \(peerName) failed: \(summary).")
        }
        return TLSError(code: TLSError.protocolError, description: "TLS with \(peerName) failed: \(summary).")
    }

    private var isServer: Bool {
        if case .server = role { return true }
        return false
    }

    /// "the client" or "the server example.com".
    private var peerName: String {
        switch role {
        case .server: "the client"
        case .client(_, _, let expected): "the server \(expected.text)"
        }
    }

    /// Reasons OpenSSL gives for bytes that are not a TLS record: an HTTP request line
    /// (`http request`, `https proxy request`), or a record header whose version or length makes
    /// no sense.
    private static let notTLSReasons: Set<Int32> = [
        SSL_R_HTTP_REQUEST, SSL_R_HTTPS_PROXY_REQUEST, SSL_R_WRONG_VERSION_NUMBER, SSL_R_UNKNOWN_PROTOCOL,
        SSL_R_PACKET_LENGTH_TOO_LONG,
    ]

    private static let versionReasons: Set<Int32> = [
        SSL_R_UNSUPPORTED_PROTOCOL, SSL_R_VERSION_TOO_LOW, SSL_R_UNSUPPORTED_SSL_VERSION, SSL_R_NO_PROTOCOLS_AVAILABLE,
    ]

    /// The alert number if `entry` reports an alert the peer sent.
    private static func alert(in entry: OpenSSLErrorQueue.Entry) -> UInt8? {
        guard entry.library == ERR_LIB_SSL, entry.reason >= SSL_AD_REASON_OFFSET,
            entry.reason < SSL_AD_REASON_OFFSET + 256
        else { return nil }
        return UInt8(entry.reason - SSL_AD_REASON_OFFSET)
    }

    private static func alertName(_ alert: UInt8) -> String {
        String(cString: SSL_alert_desc_string_long(Int32(alert)))
    }

    private func alertError(_ alert: UInt8, duringHandshake: Bool) -> TLSError {
        let name = Self.alertName(alert)
        switch (role, Int32(alert)) {
        case (.server(let context, _), SSL_AD_UNKNOWN_CA), (.server(let context, _), SSL_AD_BAD_CERTIFICATE),
            (.server(let context, _), SSL_AD_CERTIFICATE_UNKNOWN):
            return TLSError(
                code: TLSError.clientRejectedCertificate,
                description: clientRejectedDescription(context.authority, alert: alert), receivedAlert: alert)
        case (_, SSL_AD_PROTOCOL_VERSION):
            return TLSError(
                code: TLSError.unsupportedProtocolVersion,
                description: "\(peerName.capitalizedFirst) refused the TLS version (alert \"\(name)\"); "
                    + "Faultline speaks TLS 1.2 and 1.3.",
                receivedAlert: alert)
        case (_, SSL_AD_NO_APPLICATION_PROTOCOL):
            return TLSError(
                code: TLSError.noApplicationProtocol,
                description: "\(peerName.capitalizedFirst) supports none of the offered application protocols "
                    + "(alert \"\(name)\", RFC 7301 §3.2).",
                receivedAlert: alert)
        default:
            return TLSError(
                code: duringHandshake ? TLSError.handshakeFailed : TLSError.alertReceived,
                description: "\(peerName.capitalizedFirst) sent the fatal TLS alert \"\(name)\" (\(alert))"
                    + (duringHandshake ? " during the handshake." : "."),
                receivedAlert: alert)
        }
    }

    private func clientRejectedDescription(_ authority: CertificateAuthority, alert: UInt8) -> String {
        let host = certificateHost.map { " for \($0)" } ?? ""
        // unknown_ca says exactly this; bad_certificate and certificate_unknown are what some
        // clients send for the same reason (and also for a certificate of the wrong host).
        let verdict =
            Int32(alert) == SSL_AD_UNKNOWN_CA
            ? "it does not trust the Faultline CA" : "most likely it does not trust the Faultline CA"
        let file = authority.certificatePath ?? "ca.pem"
        return
            "The client rejected the certificate Faultline presented\(host) (TLS alert \"\(Self.alertName(alert))\"): "
            + "\(verdict) (\(authority.subjectDescription)). Install the CA on the client: `faultline ca export` "
            + "prints it for a trust store (`faultline ca simulator` for an iOS simulator), or give the client the "
            + "CA file (e.g. `curl --cacert \(file)`)."
    }

    private func verificationError(expected: HostIdentity) -> TLSError {
        let recorded = verificationFailure
        let result = recorded?.result ?? Int32(truncatingIfNeeded: SSL_get_verify_result(ssl))
        let failure = recorded ?? VerificationFailure(result: result, depth: 0, subject: nil)
        if result == X509_V_ERR_HOSTNAME_MISMATCH || result == X509_V_ERR_IP_ADDRESS_MISMATCH {
            var names = ""
            if !failure.alternativeNames.isEmpty {
                names = "; it names " + failure.alternativeNames.joined(separator: ", ")
            }
            let what = result == X509_V_ERR_IP_ADDRESS_MISMATCH ? "address" : "name"
            return TLSError(
                code: TLSError.hostnameMismatch,
                description: "The certificate of the server \(expected.text) is not valid for that \(what): "
                    + "\(failure.summary)\(names).",
                verifyResult: Int(result), verifyDepth: Int(failure.depth))
        }
        return TLSError(
            code: TLSError.upstreamCertificateInvalid,
            description: "The certificate of the server \(expected.text) did not verify: \(failure.summary). "
                + "For a test server, trust its CA with --upstream-ca FILE (or --insecure-upstream).",
            verifyResult: Int(result), verifyDepth: Int(failure.depth))
    }

    private func noApplicationProtocolError() -> TLSError {
        guard case .server(let context, _) = role else {
            return TLSError(
                code: TLSError.noApplicationProtocol,
                description: "\(peerName.capitalizedFirst) chose no application protocol we offered (RFC 7301 §3.2).")
        }
        return TLSError(
            code: TLSError.noApplicationProtocol,
            description: "The client offered the application protocols [\(offeredALPN.joined(separator: ", "))] "
                + "but Faultline serves [\(context.alpn.joined(separator: ", "))] (RFC 7301 §3.2).")
    }

    private func closedError(duringHandshake: Bool) -> TLSError {
        guard duringHandshake else {
            return TLSError(
                code: TLSError.unexpectedEOF,
                description: "\(peerName.capitalizedFirst) closed the connection without close_notify "
                    + "(RFC 8446 §6.1); the data may have been cut short.")
        }
        if isServer, let host = certificateHost {
            return TLSError(
                code: TLSError.handshakeInterrupted,
                description: "The client closed the connection during the TLS handshake, after Faultline presented "
                    + "its certificate for \(host); a client that does not trust the Faultline CA may do this "
                    + "instead of sending an alert (`faultline ca export` to install it).")
        }
        return TLSError(
            code: TLSError.handshakeInterrupted,
            description: "\(peerName.capitalizedFirst) closed the connection during the TLS handshake.")
    }
}

extension String {
    /// The string with its first letter upper-cased ("the client" → "The client").
    fileprivate var capitalizedFirst: String {
        guard let first else { return self }
        return first.uppercased() + dropFirst()
    }
}
