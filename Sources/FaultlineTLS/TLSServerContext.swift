import COpenSSL

/// The client-facing TLS configuration: one per proxy, shared by every intercepted connection
/// on every thread. Make server connections from it with ``TLSConnection/server(context:fallbackHost:)``.
///
/// It has no certificate of its own: when a ClientHello arrives, the server-name callback (RFC 6066
/// §3) asks the ``CertificateAuthority`` for the leaf of the SNI name, or of the connection's
/// fallback host (the CONNECT target) when the client sends none. TLS 1.2 and 1.3 are accepted;
/// renegotiation is refused. ALPN (RFC 7301) picks the first of `alpn` that the client offers;
/// a client that offers ALPN but none of ours gets the fatal `no_application_protocol` alert
/// (§3.2). A client that sends no ALPN gets none.
///
/// `@unchecked Sendable`: every field is set in `init` and never mutated; OpenSSL documents
/// `SSL_CTX` as safe to share for `SSL_new` once configured; the ALPN list is read-only memory
/// that lives as long as this object (each connection holds a strong reference to its context).
public final class TLSServerContext: @unchecked Sendable {
    /// `SSL_CTX *`, owned.
    let context: OpaquePointer
    /// The CA that signs the leaves this context presents.
    public let authority: CertificateAuthority
    /// The application protocols offered, most preferred first.
    public let alpn: [String]
    /// `alpn` in wire form, read by the ALPN selection callback; allocated here (not an array) so
    /// the protocol OpenSSL selects can point into it after the callback returns. Owned.
    let alpnWire: UnsafeMutableBufferPointer<UInt8>

    /// Configures a server context; throws `invalid-alpn` for a bad protocol name,
    /// `openssl-failure` if OpenSSL cannot set up the context.
    public init(authority: CertificateAuthority, alpn: [String] = ["http/1.1"]) throws(TLSError) {
        let wire = try ALPN.wire(alpn)
        let context = try TLSContextPolicy.makeContext(TLS_server_method(), side: "server")
        alpnWire = .allocate(capacity: wire.count)
        _ = alpnWire.initialize(from: wire)
        self.context = context
        self.authority = authority
        self.alpn = alpn
        _ = faultline_SSL_CTX_set_tlsext_servername_callback(context, serverNameCallback)
        if !alpn.isEmpty {
            SSL_CTX_set_alpn_select_cb(context, alpnSelectCallback, nil)
        }
    }

    deinit {
        SSL_CTX_free(context)
        alpnWire.deallocate()
    }
}

/// Called by OpenSSL while it reads the ClientHello, after the server_name extension (and even
/// without one): hands the certificate choice to the connection.
private func serverNameCallback(
    _ ssl: OpaquePointer?, _ alert: UnsafeMutablePointer<Int32>?, _ argument: UnsafeMutableRawPointer?
) -> Int32 {
    guard let ssl, let connection = TLSConnection.owner(of: ssl) else { return SSL_TLSEXT_ERR_ALERT_FATAL }
    return connection.selectCertificate(alert: alert)
}

/// Called by OpenSSL with the client's ALPN list (RFC 7301 §3.1).
private func alpnSelectCallback(
    _ ssl: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    _ outLength: UnsafeMutablePointer<UInt8>?,
    _ offered: UnsafePointer<UInt8>?, _ offeredLength: UInt32, _ argument: UnsafeMutableRawPointer?
) -> Int32 {
    guard let ssl, let out, let outLength, let offered, let connection = TLSConnection.owner(of: ssl) else {
        return SSL_TLSEXT_ERR_ALERT_FATAL
    }
    return connection.selectApplicationProtocol(
        offered: UnsafeBufferPointer(start: offered, count: Int(offeredLength)), out: out, outLength: outLength)
}
