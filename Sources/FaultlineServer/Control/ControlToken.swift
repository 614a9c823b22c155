import FaultlinePosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The control API's bearer token: how one is drawn and how a presented one is checked.
public enum ControlToken {
    /// 32 random bytes from the kernel (`/dev/urandom`), as 64 lower-case hex digits. Call once
    /// at start when the user gave no `--control-token`. Throws `ServerError` when the random
    /// device cannot be read (there is then no safe token to offer).
    public static func generate() throws(ServerError) -> String {
        let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ServerError("cannot open /dev/urandom for the control token") }
        defer { _ = close(fd) }
        guard let bytes = try? FileIO.readExactly(fd, count: 32) else {
            throw ServerError("cannot read /dev/urandom for the control token")
        }
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// True when `presented` equals `expected`. The time taken depends only on the lengths, not
    /// on where the first difference is, so a caller cannot find the token byte by byte by timing
    /// answers.
    public static func matches(_ presented: some StringProtocol, _ expected: String) -> Bool {
        let given = Array(presented.utf8)
        let wanted = Array(expected.utf8)
        var difference = UInt8(given.count == wanted.count ? 0 : 1)
        // Walk the expected token's length whatever was given, so the loop does not end early.
        for index in wanted.indices {
            let byte = index < given.count ? given[index] : 0
            difference |= byte ^ wanted[index]
        }
        return difference == 0 && !wanted.isEmpty
    }

    /// The token in an `Authorization: Bearer <token>` value (RFC 6750 §2.1; the scheme is
    /// case-insensitive per RFC 9110 §11.1), or nil for any other form.
    static func bearer(in authorization: String?) -> Substring? {
        guard let authorization, let space = authorization.firstIndex(of: " ") else { return nil }
        guard authorization[..<space].lowercased() == "bearer" else { return nil }
        let token = authorization[authorization.index(after: space)...].drop { $0 == " " }
        return token.isEmpty ? nil : token
    }
}
