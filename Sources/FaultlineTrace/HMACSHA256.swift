import COpenSSL

/// HMAC-SHA256 (RFC 2104) over OpenSSL's EVP digest calls, keyed once and used from any thread.
///
/// Theory of operation: HMAC(K, m) = H((K' ⊕ opad) ‖ H((K' ⊕ ipad) ‖ m)), where K' is the key
/// padded to one 64-byte SHA-256 block (RFC 2104 §2). Both padded keys fill exactly one block, so
/// `init` hashes each once and keeps the two digest states; every message then starts from a copy
/// of those states (`EVP_MD_CTX_copy_ex`) instead of re-hashing the key. This avoids the deprecated
/// `HMAC_*` functions and the per-call setup cost of `EVP_MAC`.
final class HMACSHA256: @unchecked Sendable {
    // @unchecked Sendable: `inner` and `outer` are written only in `init` and freed only in `deinit`.
    // Every other use passes them as the `const` source of `EVP_MD_CTX_copy_ex`, which only reads
    // them, so any number of threads may compute codes at once.
    fileprivate let inner: OpaquePointer
    fileprivate let outer: OpaquePointer

    /// Bytes in a SHA-256 digest, and so in an HMAC-SHA256 code.
    static let codeByteCount = 32
    private static let blockByteCount = 64

    /// Prepares a key of any length (longer than one block is hashed first, RFC 2104 §3).
    init(key: some Collection<UInt8>) {
        var block = [UInt8](repeating: 0, count: Self.blockByteCount)
        if key.count > Self.blockByteCount {
            let digest = Self.sha256(Array(key))
            block.replaceSubrange(0..<digest.count, with: digest)
        } else {
            block.replaceSubrange(0..<key.count, with: key)
        }
        inner = Self.context(absorbing: block.map { $0 ^ 0x36 })
        outer = Self.context(absorbing: block.map { $0 ^ 0x5C })
        // The padded key is not needed any more; do not leave it in freed heap memory.
        for index in block.indices { block[index] = 0 }
    }

    deinit {
        EVP_MD_CTX_free(inner)
        EVP_MD_CTX_free(outer)
    }

    /// Returns the 32-byte code of `message`.
    func code(for message: UnsafeRawBufferPointer) -> [UInt8] {
        var computation = Computation(key: self)
        computation.update(message)
        var code = [UInt8](repeating: 0, count: Self.codeByteCount)
        code.withUnsafeMutableBytes { computation.finish(into: $0) }
        return code
    }

    /// Returns the 32-byte code of `message`.
    func code(for message: [UInt8]) -> [UInt8] {
        message.withUnsafeBytes { code(for: $0) }
    }

    /// One HMAC in progress: feed it the message in pieces, then finish it once.
    ///
    /// Owns an EVP digest context, freed when the value goes away. Not for sharing across threads.
    struct Computation: ~Copyable {
        private let context: OpaquePointer
        private let key: HMACSHA256

        init(key: HMACSHA256) {
            guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new: out of memory") }
            guard EVP_MD_CTX_copy_ex(context, key.inner) == 1 else { preconditionFailure("EVP_MD_CTX_copy_ex failed") }
            self.context = context
            self.key = key
        }

        deinit { EVP_MD_CTX_free(context) }

        /// Adds the next piece of the message.
        mutating func update(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
            guard EVP_DigestUpdate(context, base, bytes.count) == 1 else {
                preconditionFailure("EVP_DigestUpdate failed")
            }
        }

        /// Writes the 32-byte code into `output`, which must have room for it. Call once, last.
        mutating func finish(into output: UnsafeMutableRawBufferPointer) {
            precondition(output.count >= HMACSHA256.codeByteCount, "HMAC output buffer too small")
            let digest = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var length: UInt32 = 0
            guard EVP_DigestFinal_ex(context, digest, &length) == 1,
                EVP_MD_CTX_copy_ex(context, key.outer) == 1,
                EVP_DigestUpdate(context, digest, Int(length)) == 1,
                EVP_DigestFinal_ex(context, digest, &length) == 1
            else { preconditionFailure("EVP digest failed while finishing an HMAC") }
        }

        /// Finishes the code and returns what a fingerprint shows of it: its first 8 bytes, as one
        /// big-endian number. Call once, last.
        mutating func finishFingerprint() -> UInt64 {
            withUnsafeTemporaryAllocation(byteCount: HMACSHA256.codeByteCount, alignment: 8) { code in
                finish(into: code)
                return code.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
            }
        }
    }

    private static func context(absorbing block: [UInt8]) -> OpaquePointer {
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new: out of memory") }
        let ok = block.withUnsafeBytes { bytes in
            EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1
                && EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1
        }
        guard ok else { preconditionFailure("EVP_DigestInit_ex(SHA-256) failed") }
        return context
    }

    private static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new: out of memory") }
        defer { EVP_MD_CTX_free(context) }
        var digest = [UInt8](repeating: 0, count: codeByteCount)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1
                && EVP_DigestUpdate(context, input.baseAddress, input.count) == 1
                && EVP_DigestFinal_ex(context, &digest, &length) == 1
        }
        guard ok else { preconditionFailure("SHA-256 digest failed") }
        return digest
    }
}
