import FaultlineCore

@testable import FaultlineHTTP2

/// A hand-built or parsed HTTP/2 frame (RFC 9113 §4.1), for input nghttp2 would never send and
/// for checking what a connection wrote.
struct Frame: Equatable, CustomStringConvertible {
    var type: UInt8
    var flags: UInt8
    var stream: Int32
    var payload: [UInt8]

    static let data: UInt8 = 0x0
    static let headers: UInt8 = 0x1
    static let rstStream: UInt8 = 0x3
    static let settings: UInt8 = 0x4
    static let ping: UInt8 = 0x6
    static let goAway: UInt8 = 0x7
    static let windowUpdate: UInt8 = 0x8
    static let continuation: UInt8 = 0x9

    static let endStream: UInt8 = 0x1
    static let ack: UInt8 = 0x1
    static let endHeaders: UInt8 = 0x4

    /// The client connection preface's magic (RFC 9113 §3.4).
    static let clientMagic = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// The 9-byte header and the payload.
    var bytes: [UInt8] {
        let length = payload.count
        let id = UInt32(bitPattern: stream) & 0x7fff_ffff
        return [
            UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8),
            UInt8(truncatingIfNeeded: length),
            type, flags,
            UInt8(truncatingIfNeeded: id >> 24), UInt8(truncatingIfNeeded: id >> 16),
            UInt8(truncatingIfNeeded: id >> 8),
            UInt8(truncatingIfNeeded: id),
        ] + payload
    }

    var description: String {
        "\(HTTP2Connection.frameTypeName(type)) flags=0x\(String(flags, radix: 16)) stream=\(stream) \(payload.count)B"
    }

    // MARK: Builders

    static func settings(_ parameters: [(UInt16, UInt32)] = []) -> Frame {
        Frame(type: settings, flags: 0, stream: 0, payload: parameters.flatMap { be16($0.0) + be32($0.1) })
    }

    static func settingsAck() -> Frame { Frame(type: settings, flags: ack, stream: 0, payload: []) }

    static func headers(stream: Int32, _ fields: [(String, String)], endStream: Bool = false, endHeaders: Bool = true)
        -> Frame
    {
        headers(stream: stream, block: HPACK.literals(fields), endStream: endStream, endHeaders: endHeaders)
    }

    static func headers(stream: Int32, block: [UInt8], endStream: Bool = false, endHeaders: Bool = true) -> Frame {
        Frame(
            type: headers, flags: (endStream ? Self.endStream : 0) | (endHeaders ? Self.endHeaders : 0), stream: stream,
            payload: block)
    }

    static func continuation(stream: Int32, block: [UInt8], endHeaders: Bool) -> Frame {
        Frame(type: continuation, flags: endHeaders ? Self.endHeaders : 0, stream: stream, payload: block)
    }

    static func data(stream: Int32, _ bytes: [UInt8], endStream: Bool = false) -> Frame {
        Frame(type: data, flags: endStream ? Self.endStream : 0, stream: stream, payload: bytes)
    }

    static func rstStream(stream: Int32, code: HTTP2ErrorCode) -> Frame {
        Frame(type: rstStream, flags: 0, stream: stream, payload: be32(code.rawValue))
    }

    static func ping(_ opaque: UInt64 = 0) -> Frame {
        Frame(
            type: ping, flags: 0, stream: 0,
            payload: be32(UInt32(opaque >> 32)) + be32(UInt32(truncatingIfNeeded: opaque)))
    }

    /// Everything a client sends first: magic and an empty SETTINGS (§3.4).
    static var clientPreface: [UInt8] { clientMagic + settings().bytes }

    // MARK: Reading

    /// The frames in `bytes`, after the client magic if they start with it. Stops at a partial frame.
    static func parse(_ bytes: [UInt8]) -> [Frame] {
        var offset = bytes.starts(with: clientMagic) ? clientMagic.count : 0
        var frames: [Frame] = []
        while bytes.count - offset >= 9 {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            guard bytes.count - offset - 9 >= length else { break }
            let id = Int32(bitPattern: readBE32(bytes, offset + 5) & 0x7fff_ffff)
            frames.append(
                Frame(
                    type: bytes[offset + 3], flags: bytes[offset + 4], stream: id,
                    payload: Array(bytes[(offset + 9)..<(offset + 9 + length)])))
            offset += 9 + length
        }
        return frames
    }

    /// RST_STREAM's or GOAWAY's error code.
    var errorCode: HTTP2ErrorCode? {
        switch type {
        case Self.rstStream where payload.count == 4: HTTP2ErrorCode(rawValue: Self.readBE32(payload, 0))
        case Self.goAway where payload.count >= 8: HTTP2ErrorCode(rawValue: Self.readBE32(payload, 4))
        default: nil
        }
    }

    /// GOAWAY's last stream ID.
    var lastStreamID: Int32? {
        guard type == Self.goAway, payload.count >= 8 else { return nil }
        return Int32(bitPattern: Self.readBE32(payload, 0) & 0x7fff_ffff)
    }

    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(truncatingIfNeeded: value)] }

    static func be32(_ value: UInt32) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
            UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value),
        ]
    }

    static func readBE32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }
}

/// HPACK by hand, the one representation a test needs: "literal header field without indexing
/// — new name" (RFC 7541 §6.2.2), strings without Huffman coding (§5.2).
enum HPACK {
    /// A header block of `fields`, each a literal without indexing with a new name.
    static func literals(_ fields: [(String, String)]) -> [UInt8] {
        fields.flatMap { literal(name: Array($0.0.utf8), value: Array($0.1.utf8)) }
    }

    /// One field: 0x00 (pattern 0000, index 0), then name and value as string literals.
    static func literal(name: [UInt8], value: [UInt8]) -> [UInt8] {
        [0x00] + string(name) + string(value)
    }

    /// A string literal (§5.2): H = 0, length as a 7-bit-prefix integer, the octets.
    static func string(_ octets: [UInt8]) -> [UInt8] {
        integer(octets.count, prefixBits: 7) + octets
    }

    /// An integer with an N-bit prefix (§5.1); the prefix's other bits are 0.
    static func integer(_ value: Int, prefixBits: Int) -> [UInt8] {
        let limit = (1 << prefixBits) - 1
        guard value >= limit else { return [UInt8(value)] }
        var bytes = [UInt8(limit)]
        var rest = value - limit
        while rest >= 128 {
            bytes.append(UInt8(rest % 128 + 128))
            rest /= 128
        }
        bytes.append(UInt8(rest))
        return bytes
    }
}
