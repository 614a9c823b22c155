import COpenSSL

/// What the client and server contexts share: a new `SSL_CTX` that speaks TLS 1.2 and 1.3 only
/// and never renegotiates (renegotiation is a denial-of-service and downgrade surface neither
/// side needs).
enum TLSContextPolicy {
    /// A context for `method` with that policy; `side` ("client", "server") names it in the error.
    /// The context is freed when the policy cannot be set, so a failed `init` leaks nothing.
    static func makeContext(_ method: OpaquePointer?, side: String) throws(TLSError) -> OpaquePointer {
        OpenSSLErrorQueue.clear()
        guard let context = SSL_CTX_new(method) else {
            throw OpenSSLErrorQueue.error(TLSError.internalFailure, "Creating the \(side) TLS context failed")
        }
        guard faultline_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            let error = OpenSSLErrorQueue.error(TLSError.internalFailure, "Setting the minimum TLS version failed")
            SSL_CTX_free(context)
            throw error
        }
        SSL_CTX_set_options(context, faultline_SSL_OP_NO_RENEGOTIATION())
        return context
    }
}
