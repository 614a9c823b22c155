import COpenSSL

/// The first certificate-verification failure OpenSSL reported on the client side.
struct VerificationFailure: Equatable {
    /// `X509_V_ERR_*`.
    let result: Int32
    /// Position in the chain, 0 for the leaf.
    let depth: Int32
    /// Subject of the certificate at that depth (RFC 2253), if there was one.
    let subject: String?
    /// For a name mismatch: the names the certificate does carry ("DNS:a.example", "IP:10.0.0.1").
    var alternativeNames: [String] = []

    /// OpenSSL's text for `result`, e.g. "unable to get local issuer certificate".
    var reason: String { String(cString: X509_verify_cert_error_string(Int(result))) }

    /// "reason at depth N (subject)".
    var summary: String {
        var text = "\(reason) at depth \(depth)"
        if let subject, !subject.isEmpty { text += " (\(subject))" }
        return text
    }
}

extension TLSConnection {
    /// Server side, from the server-name callback: presents the leaf for the client's SNI name,
    /// or for the fallback host when the client sent none or one no certificate can carry.
    func selectCertificate(alert: UnsafeMutablePointer<Int32>?) -> Int32 {
        guard case .server(let context, let fallbackHost) = role else { return SSL_TLSEXT_ERR_NOACK }
        var host = fallbackHost
        if let requested = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name).map({ String(cString: $0) }),
            (try? HostIdentity(requested)) != nil
        {
            host = requested
        }
        do throws(TLSError) {
            let (leaf, minted) = try context.authority.lookUpOrMint(host)
            OpenSSLErrorQueue.clear()
            guard SSL_use_certificate(ssl, leaf.owned.certificate) == 1,
                SSL_use_PrivateKey(ssl, leaf.owned.privateKey) == 1
            else {
                throw OpenSSLErrorQueue.error(
                    TLSError.certificateUnavailable, "Installing the certificate for \(leaf.host) failed")
            }
            certificateHost = leaf.host
            certificateWasMinted = minted
            return SSL_TLSEXT_ERR_OK
        } catch {
            callbackFailure = TLSError(
                code: TLSError.certificateUnavailable,
                description:
                    "No certificate could be made for \"\(HostIdentity.printable(host))\": \(error.description)")
            alert?.pointee = SSL_AD_INTERNAL_ERROR
            return SSL_TLSEXT_ERR_ALERT_FATAL
        }
    }

    /// Server side, from the ALPN callback: the first of our protocols the client offers (RFC 7301
    /// §3.2, server preference); none in common is fatal (`no_application_protocol`).
    func selectApplicationProtocol(
        offered: UnsafeBufferPointer<UInt8>, out: UnsafeMutablePointer<UnsafePointer<UInt8>?>,
        outLength: UnsafeMutablePointer<UInt8>
    ) -> Int32 {
        guard case .server(let context, _) = role else { return SSL_TLSEXT_ERR_NOACK }
        offeredALPN = ALPN.names(offered)
        // The selected name must outlive this call: it points into the context's own list, which
        // stays allocated as long as the context this connection holds.
        let ours = context.alpnWire
        var selected: UnsafeMutablePointer<UInt8>?
        var selectedLength: UInt8 = 0
        let outcome = SSL_select_next_proto(
            &selected, &selectedLength, ours.baseAddress, UInt32(ours.count), offered.baseAddress, UInt32(offered.count)
        )
        guard outcome == OPENSSL_NPN_NEGOTIATED, let selected else { return SSL_TLSEXT_ERR_ALERT_FATAL }
        out.pointee = UnsafePointer(selected)
        outLength.pointee = selectedLength
        return SSL_TLSEXT_ERR_OK
    }

    /// Client side, from the verify callback: keeps the first failure (the one that decides).
    func noteVerificationFailure(result: Int32, depth: Int32, certificate: OpaquePointer?) {
        guard verificationFailure == nil else { return }
        var failure = VerificationFailure(
            result: result, depth: depth, subject: certificate.map { X509Text.subject($0) })
        if result == X509_V_ERR_HOSTNAME_MISMATCH || result == X509_V_ERR_IP_ADDRESS_MISMATCH, let certificate {
            failure.alternativeNames = X509Text.subjectAlternativeNames(certificate)
        }
        verificationFailure = failure
    }
}
