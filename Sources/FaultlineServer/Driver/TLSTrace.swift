import FaultlineFlow
import FaultlineProxy
import FaultlineTLS
import FaultlineTrace

/// The fields of the `tls.*` events: names, versions and verdicts, never key material.
enum TLSTrace {
    /// `tls.handshake` fields. Client side: the certificate presented and whether it was minted
    /// for this connection. Upstream side: who answered and whether it was verified.
    /// `verifying`: upstream side, whether the proxy checks upstream certificates at all.
    static func handshake(
        side: TLSSide, _ info: TLSSessionInfo, connection: TLSConnection, verifying: Bool = false
    ) -> [TraceField] {
        var fields: [TraceField] = [
            .string("side", side.rawValue), info.serverName.map { .string("sni", $0) } ?? .null("sni"),
            info.alpn.map { .string("alpn", $0) } ?? .null("alpn"), .string("version", info.protocolVersion),
            .string("cipher", info.cipher), .bool("resumed", info.sessionResumed),
        ]
        switch side {
        case .client:
            if let host = connection.certificateHost { fields.append(.string("certificate_host", host)) }
            fields.append(.bool("certificate_minted", connection.certificateWasMinted))
        case .upstream:
            if let subject = info.peerCertificateSubject { fields.append(.string("peer_subject", subject)) }
            fields.append(.bool("verified", verifying))
            if let problem = info.peerVerificationError { fields.append(.string("verification_error", problem)) }
        }
        return fields
    }

    /// `tls.failed` fields; `hint` tells the person what to do when we know.
    static func failure(side: TLSSide, code: String, message: String, hint: String? = nil) -> [TraceField] {
        var fields: [TraceField] = [.string("side", side.rawValue), .string("code", code), .string("message", message)]
        if let hint { fields.append(.string("hint", hint)) }
        return fields
    }

    /// What to tell someone whose client refused the minted certificate.
    static func untrustedCAHint(_ authority: CertificateAuthority) -> String {
        let path = authority.certificatePath ?? "the CA certificate (faultline ca export)"
        return "the client does not trust the Faultline CA: give it \(path) "
            + "(curl --cacert, SSL_CERT_FILE, 'faultline ca simulator' for an iOS simulator, "
            + "'faultline ca export --format der' for a device), or --ignore this host to tunnel it"
    }

    /// The upstream failure a client is answered with (502, or 504 for a timeout).
    static func upstreamFailure(_ error: TLSError, target: String) -> UpstreamFailure {
        UpstreamFailure(code: error.code, status: 502, description: "TLS with \(target) failed: \(error.description)")
    }
}

/// Which peer a TLS event is about.
enum TLSSide: String {
    case client
    case upstream
}
