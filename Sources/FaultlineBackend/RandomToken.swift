import FaultlineCore

/// Random opaque credentials: 24 bytes from the system's secure generator, base64url-encoded
/// without padding (RFC 4648 §5), so they are safe in headers, cookies and form bodies as they are.
///
/// `SystemRandomNumberGenerator` reads the kernel's CSPRNG (getrandom on Linux, arc4random on
/// Darwin) and may be used from any thread.
enum RandomToken {
    /// Bytes of randomness per token: 192 bits, far beyond guessing (RFC 6749 §10.10 asks for
    /// tokens an attacker cannot guess; RFC 6819 §5.1.4.2.2 suggests at least 128 bits).
    static let byteCount = 24

    /// A fresh token, `prefix` followed by 32 base64url characters. The prefix (`at_`, `rt_`,
    /// `sess_`) only helps a person reading a capture; the backend never parses it.
    static func make(prefix: String = "") -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(byteCount)
        for _ in 0..<(byteCount / 8) {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        return prefix + base64URL(bytes)
    }

    /// Base64url without padding (RFC 4648 §5 and §3.2).
    static func base64URL(_ bytes: [UInt8]) -> String {
        Base64.encoded(bytes, variant: .urlUnpadded)
    }
}
