/// What the first bytes of a connection (after `CONNECT`'s 200) say about it.
public enum ClientHelloPeekResult: Sendable, Equatable {
    /// The bytes so far are a valid beginning of a ClientHello; read more and ask again.
    case needMoreBytes
    /// Not a TLS ClientHello (or one too broken or too large to trust); `reason` says why, for the
    /// trace. The proxy tunnels such bytes unchanged or refuses them.
    case notTLS(reason: String)
    /// A complete ClientHello: the SNI host name (RFC 6066 §3; nil if absent) and the offered
    /// ALPN protocols (RFC 7301 §3.1; empty if absent), in the client's order.
    case tls(serverName: String?, alpn: [String])
}

/// Looks at a connection's first bytes without consuming them, to decide between intercepting
/// TLS (and for which host) and tunnelling.
///
/// Theory of operation: a ClientHello arrives as one handshake message (RFC 8446 §4: 1-byte type
/// 1, 3-byte length) carried in one or more handshake records (§5.1: type 22, 2-byte legacy
/// version 0x03xx, 2-byte length of 1...2^14), and the message may be split across records and
/// the records across reads. `inspect` re-reads from the start each time (the ClientHello is
/// small, and the caller keeps the bytes anyway to feed them to the TLS engine): it joins the
/// record fragments, decides "not TLS" as soon as a byte rules TLS out, and parses the body once
/// the whole message is there. Nothing the peer sends can make it trap or read out of bounds.
public enum ClientHelloPeek {
    /// The largest ClientHello accepted (with post-quantum key shares real ones are about 2 KiB).
    public static let maximumClientHelloLength = 16_384

    /// Classifies `bytes`, the connection's bytes from its first one on.
    public static func inspect(_ bytes: [UInt8]) -> ClientHelloPeekResult {
        var message: [UInt8] = []
        var offset = 0
        while true {
            if offset == bytes.count { return .needMoreBytes }
            // Record header (RFC 8446 §5.1): ContentType, legacy_record_version, length.
            guard bytes[offset] == 22 else {
                return .notTLS(
                    reason: offset == 0
                        ? "the first byte \(hex(bytes[0])) is not a TLS handshake record"
                        : "a record of type \(bytes[offset]) interrupts the ClientHello")
            }
            if offset + 1 < bytes.count, bytes[offset + 1] != 3 {
                return .notTLS(reason: "the record version \(hex(bytes[offset + 1]))xx is not TLS")
            }
            guard offset + 5 <= bytes.count else { return .needMoreBytes }
            let length = Int(bytes[offset + 3]) << 8 | Int(bytes[offset + 4])
            guard length > 0, length <= 16_384 else {
                return .notTLS(reason: "a handshake record of \(length) bytes is outside 1...16384 (RFC 8446 §5.1)")
            }
            let fragmentStart = offset + 5
            let available = min(length, bytes.count - fragmentStart)
            message.append(contentsOf: bytes[fragmentStart..<fragmentStart + available])
            if let verdict = checkMessage(message) {
                // A whole ClientHello in a record not yet whole: the record's other bytes would
                // rule TLS out (checkMessage), so wait for them. Else the verdict would depend on
                // where the reads were cut.
                if case .tls = verdict, available < length { return .needMoreBytes }
                return verdict
            }
            guard available == length else { return .needMoreBytes }
            offset = fragmentStart + length
        }
    }

    /// Nil while the message is incomplete but plausible; otherwise the answer.
    private static func checkMessage(_ message: [UInt8]) -> ClientHelloPeekResult? {
        guard let type = message.first else { return nil }
        guard type == 1 else {
            return .notTLS(reason: "the first handshake message is of type \(type), not ClientHello")
        }
        guard message.count >= 4 else { return nil }
        let length = Int(message[1]) << 16 | Int(message[2]) << 8 | Int(message[3])
        guard length <= maximumClientHelloLength else {
            return .notTLS(
                reason: "a ClientHello of \(length) bytes is over the \(maximumClientHelloLength)-byte limit")
        }
        guard message.count >= 4 + length else { return nil }
        guard message.count == 4 + length else {
            // RFC 8446 §5.1: the ClientHello must end at a record boundary (nothing may follow it
            // before the server answers).
            return .notTLS(reason: "bytes follow the ClientHello inside its record")
        }
        var reader = ByteReader(message[4...])
        switch ClientHelloParser.parse(&reader) {
        case .success(let hello): return .tls(serverName: hello.serverName, alpn: hello.alpn)
        case .failure(let problem): return .notTLS(reason: "malformed ClientHello: \(problem.reason)")
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return "0x\(digits[Int(byte >> 4)])\(digits[Int(byte & 0xF)])"
    }
}
