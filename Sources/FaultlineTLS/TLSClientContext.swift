import COpenSSL

/// The upstream-facing TLS configuration: one per proxy (or per trust setting), shared by every
/// upstream connection on every thread. Make client connections from it with
/// ``TLSConnection/client(context:serverName:alpn:)``.
///
/// By default the server's chain is verified against the system trust store
/// (`SSL_CTX_set_default_verify_paths`) plus any extra anchors, and each connection checks the
/// host name or IP address it dialled (RFC 6125). TLS 1.2 and 1.3; no renegotiation.
///
/// `@unchecked Sendable`: every field is set in `init` and never mutated; OpenSSL documents a
/// configured `SSL_CTX` (and its `X509_STORE`) as safe to share for `SSL_new` across threads.
public final class TLSClientContext: @unchecked Sendable {
    /// `SSL_CTX *`, owned.
    let context: OpaquePointer
    /// Whether handshakes fail on a certificate that does not verify (`--insecure-upstream` is false).
    public let verify: Bool
    /// The extra trust-anchor file (`--upstream-ca`), if any.
    public let extraTrustAnchorsPEMFile: String?

    /// Configures a client context. With `verify` false, handshakes succeed whatever the
    /// certificate, and ``TLSSessionInfo/peerVerificationError`` says what verification would have
    /// said. Throws `trust-anchors-unreadable` when `extraTrustAnchorsPEMFile` cannot be loaded.
    public init(verify: Bool = true, extraTrustAnchorsPEMFile: String? = nil) throws(TLSError) {
        let context = try TLSContextPolicy.makeContext(TLS_client_method(), side: "client")
        self.context = context
        self.verify = verify
        self.extraTrustAnchorsPEMFile = extraTrustAnchorsPEMFile
        // A missing system store is not an error here: verification then fails per connection
        // with "unable to get local issuer certificate", which names the problem.
        _ = SSL_CTX_set_default_verify_paths(context)
        OpenSSLErrorQueue.clear()
        if let file = extraTrustAnchorsPEMFile {
            guard SSL_CTX_load_verify_locations(context, file, nil) == 1 else {
                throw OpenSSLErrorQueue.error(
                    TLSError.trustAnchorsUnreadable,
                    "Loading trust anchors from \(file) failed (expected PEM certificates)")
            }
        }
        // The callback runs in both modes: it records the first failure for the error or for
        // `peerVerificationError`, and returns OpenSSL's own verdict unchanged.
        SSL_CTX_set_verify(context, verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, verifyCallback)
    }

    deinit {
        SSL_CTX_free(context)
    }
}

/// Called by OpenSSL for each certificate in the chain (and for the host-name check at depth 0)
/// with its verdict so far.
private func verifyCallback(_ preverified: Int32, _ store: OpaquePointer?) -> Int32 {
    guard preverified == 0, let store,
        let sslPointer = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
        let connection = TLSConnection.owner(of: OpaquePointer(sslPointer))
    else { return preverified }
    connection.noteVerificationFailure(
        result: X509_STORE_CTX_get_error(store), depth: X509_STORE_CTX_get_error_depth(store),
        certificate: X509_STORE_CTX_get_current_cert(store))
    return preverified
}
