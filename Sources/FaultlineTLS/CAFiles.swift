import COpenSSL
import FaultlinePosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File handling for the CA directory: plain POSIX calls, so modes are set at creation and every
/// failure names the path and `strerror`.
enum CAFiles {
    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Creates `directory` and missing parents with mode 0700; an existing directory is kept as it is.
    static func makeDirectory(_ directory: String) throws(TLSError) {
        var isDirectory = stat()
        if stat(directory, &isDirectory) == 0 {
            guard (isDirectory.st_mode & S_IFMT) == S_IFDIR else {
                throw TLSError(code: TLSError.caWriteFailed, description: "\(directory) exists and is not a directory.")
            }
            return
        }
        if let slash = directory.lastIndex(of: "/"), slash != directory.startIndex {
            try makeDirectory(String(directory[..<slash]))
        }
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
            throw systemError(TLSError.caWriteFailed, "Creating the directory \(directory)")
        }
    }

    /// Takes an exclusive `flock` on `directory/.lock`, waiting for another process holding it.
    static func lock(_ directory: String) throws(TLSError) -> Int32 {
        let path = directory + "/.lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw systemError(TLSError.caWriteFailed, "Opening \(path)") }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let error = systemError(TLSError.caWriteFailed, "Locking \(path)")
                close(descriptor)
                throw error
            }
        }
        return descriptor
    }

    static func unlock(_ descriptor: Int32) {
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Writes `bytes` to a new temporary file created with `mode`, syncs it, and renames it over
    /// `path`, so readers see the old file or the whole new one. The buffer is zeroed afterwards
    /// (it may hold the key).
    static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t) throws(TLSError) {
        var bytes = bytes
        defer { for index in bytes.indices { bytes[index] = 0 } }
        let temporary = "\(path).tmp-\(getpid())"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw systemError(TLSError.caWriteFailed, "Creating \(temporary)") }
        do {
            try FileIO.writeAll(descriptor, bytes)
        } catch {
            close(descriptor)
            unlink(temporary)
            throw systemError(TLSError.caWriteFailed, "Writing \(temporary)", errno: error.errno)
        }
        guard fsync(descriptor) == 0 else {
            let error = systemError(TLSError.caWriteFailed, "Syncing \(temporary)")
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let error = systemError(TLSError.caWriteFailed, "Moving \(temporary) to \(path)")
            unlink(temporary)
            throw error
        }
    }

    /// Reads a whole file (CA files are a few kilobytes; anything past 1 MiB is not one).
    static func readWhole(_ path: String, what: String) throws(TLSError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw systemError(TLSError.caUnreadable, "Opening the \(what) \(path)") }
        defer { close(descriptor) }
        let contents: [UInt8]?
        do {
            contents = try FileIO.readToEnd(descriptor, limit: 1 << 20, scrub: true)
        } catch {
            throw systemError(TLSError.caUnreadable, "Reading the \(what) \(path)", errno: error.errno)
        }
        guard let contents else {
            throw TLSError(code: TLSError.caUnreadable, description: "The \(what) \(path) is larger than 1 MiB.")
        }
        return contents
    }

    /// The first PEM certificate in `path`. The caller owns it.
    static func readCertificate(_ path: String) throws(TLSError) -> OpaquePointer {
        let contents = try readWhole(path, what: "CA certificate")
        return try withBIO(contents) { bio throws(TLSError) in
            OpenSSLErrorQueue.clear()
            guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else {
                throw OpenSSLErrorQueue.error(
                    TLSError.caUnreadable, "\(path) does not hold a PEM certificate (\"-----BEGIN CERTIFICATE-----\")")
            }
            return certificate
        }
    }

    /// The PEM private key in `path`. An encrypted key is refused rather than prompting for a
    /// passphrase on the terminal (OpenSSL's default when no callback is given).
    static func readPrivateKey(_ path: String) throws(TLSError) -> OpaquePointer {
        var contents = try readWhole(path, what: "CA key")
        defer { for index in contents.indices { contents[index] = 0 } }
        return try withBIO(contents) { bio throws(TLSError) in
            OpenSSLErrorQueue.clear()
            let refusePassphrase:
                @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?)
                    -> Int32 = { _, _, _, _ in -1 }
            guard let key = PEM_read_bio_PrivateKey(bio, nil, refusePassphrase, nil) else {
                let reason = OpenSSLErrorQueue.summary(OpenSSLErrorQueue.drain())
                let encrypted =
                    contents.starts(with: Array("-----BEGIN ENCRYPTED".utf8))
                    || reason.contains("bad password") || reason.contains("bad decrypt")
                throw TLSError(
                    code: TLSError.caUnreadable,
                    description: encrypted
                        ? "The CA key \(path) is encrypted; give Faultline an unencrypted key (e.g. `openssl pkey -in KEY -out PLAIN`)."
                        : "\(path) does not hold a PEM private key: \(reason).")
            }
            return key
        }
    }

    private static func withBIO<Result>(
        _ contents: [UInt8], _ body: (OpaquePointer) throws(TLSError) -> Result
    ) throws(TLSError) -> Result {
        let bio = contents.withUnsafeBytes { BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }
        guard let bio else { throw OpenSSLErrorQueue.error(TLSError.internalFailure, "Allocating a memory BIO failed") }
        defer { BIO_free(bio) }
        return try body(bio)
    }

    /// `what failed: <strerror>.`, for `number`, else the `errno` the last call left.
    private static func systemError(_ code: String, _ what: String, errno number: Int32? = nil) -> TLSError {
        let reason = String(cString: strerror(number ?? errno))
        return TLSError(code: code, description: "\(what) failed: \(reason).")
    }
}
