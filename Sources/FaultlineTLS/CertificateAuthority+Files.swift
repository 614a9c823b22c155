import COpenSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension CertificateAuthority {
    /// The CA certificate's file name inside the CA directory (what `faultline ca path` shows).
    public static let certificateFileName = "ca.pem"
    /// The CA key's file name inside the CA directory (mode 0600).
    public static let keyFileName = "ca-key.pem"

    /// Faultline's configuration directory: `$FAULTLINE_HOME` when set and not empty, otherwise
    /// `~/.faultline`.
    public static var defaultDirectory: String {
        var home = getenv("HOME").map { String(cString: $0) }
        if home?.isEmpty ?? true, let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir {
            home = String(cString: directory)
        }
        return resolveDirectory(faultlineHome: getenv("FAULTLINE_HOME").map { String(cString: $0) }, home: home ?? "")
    }

    /// `faultlineHome` if set and not empty, else `home/.faultline`.
    static func resolveDirectory(faultlineHome: String?, home: String) -> String {
        if let faultlineHome, !faultlineHome.isEmpty { return faultlineHome }
        return home + "/.faultline"
    }

    /// Loads `ca.pem` and `ca-key.pem` from `directory`, or creates them on first use.
    ///
    /// A new CA is EC P-256, named "Faultline Local CA <random>", valid two years from yesterday.
    /// The directory is created with mode 0700 and the key file with 0600 (set when the file is
    /// created, never widened and narrowed later). Creation holds an exclusive `flock` on
    /// `directory/.lock` and moves finished files into place, so two processes starting at once
    /// end up with the same CA. Throws `ca-unreadable` for a certificate without its key or an
    /// unreadable file, `ca-invalid` for a certificate that is not a CA or a key that is not its,
    /// `ca-write-failed` when the directory or files cannot be written.
    public static func loadOrCreate(directory: String = defaultDirectory) throws(TLSError) -> CertificateAuthority {
        try CAFiles.makeDirectory(directory)
        let lock = try CAFiles.lock(directory)
        defer { CAFiles.unlock(lock) }
        let certificatePath = directory + "/" + certificateFileName
        let keyPath = directory + "/" + keyFileName
        switch (CAFiles.exists(certificatePath), CAFiles.exists(keyPath)) {
        case (true, true):
            return try load(certificatePath: certificatePath, keyPath: keyPath)
        case (true, false):
            throw TLSError(
                code: TLSError.caUnreadable,
                description: "\(certificatePath) exists but its key \(keyPath) does not; restore the key, "
                    + "or remove both files to let Faultline create a new CA (clients must then trust the new one).")
        case (false, _):
            // A key without a certificate is left over from an interrupted creation (the key is
            // written first): no client can trust a certificate that was never written, so start over.
            let (certificate, key) = try makeAuthorityPair()
            let authority = CertificateAuthority(
                certificate: certificate, privateKey: key, certificatePath: certificatePath)
            try CAFiles.writeAtomically(privateKeyPEM(key), to: keyPath, mode: 0o600)
            try CAFiles.writeAtomically(Array(authority.certificatePEM.utf8), to: certificatePath, mode: 0o644)
            return authority
        }
    }

    /// Loads a CA the user brings (`--ca-cert`, `--ca-key`): PEM certificate and unencrypted PEM
    /// private key. Throws `ca-unreadable` (missing file, not PEM, encrypted key) or `ca-invalid`
    /// (not a CA certificate, or the key does not match it).
    public static func load(certificatePath: String, keyPath: String) throws(TLSError) -> CertificateAuthority {
        let certificate = try CAFiles.readCertificate(certificatePath)
        let key: OpaquePointer
        do throws(TLSError) {
            key = try CAFiles.readPrivateKey(keyPath)
        } catch {
            X509_free(certificate)
            throw error
        }
        let authority = CertificateAuthority(
            certificate: certificate, privateKey: key, certificatePath: certificatePath)
        // X509_check_ca: 1 for a v3 CA (basicConstraints CA:TRUE), 3 for a self-signed v1 root.
        guard X509_check_ca(certificate) >= 1 else {
            throw TLSError(
                code: TLSError.caInvalid,
                description: "\(certificatePath) is not a CA certificate (it lacks basicConstraints CA:TRUE), "
                    + "so certificates signed with it would be rejected.")
        }
        OpenSSLErrorQueue.clear()
        guard X509_check_private_key(certificate, key) == 1 else {
            OpenSSLErrorQueue.clear()
            throw TLSError(
                code: TLSError.caInvalid,
                description: "The private key in \(keyPath) does not belong to the certificate in \(certificatePath).")
        }
        return authority
    }

    /// The key as unencrypted PKCS #8 PEM, for the 0600 key file only.
    private static func privateKeyPEM(_ key: OpaquePointer) throws(TLSError) -> [UInt8] {
        OpenSSLErrorQueue.clear()
        guard let bio = BIO_new(BIO_s_mem()) else {
            throw OpenSSLErrorQueue.error(TLSError.internalFailure, "Allocating a memory BIO failed")
        }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else {
            throw OpenSSLErrorQueue.error(TLSError.internalFailure, "Encoding the CA key failed")
        }
        return X509Text.drain(bio)
    }
}
