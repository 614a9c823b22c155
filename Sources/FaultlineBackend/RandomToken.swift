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

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Base64url without padding (RFC 4648 §5 and §3.2).
    static func base64URL(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let b0 = UInt32(bytes[index])
            let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            if remaining > 1 { output.append(alphabet[Int(group >> 6 & 0x3F)]) }
            if remaining > 2 { output.append(alphabet[Int(group & 0x3F)]) }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }
}
