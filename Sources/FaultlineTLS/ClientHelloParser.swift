/// Bounds-checked reading of TLS presentation-language fields (RFC 8446 §3): integers in network
/// order and length-prefixed vectors. Every read returns nil rather than going past the end.
struct ByteReader {
    private let bytes: ArraySlice<UInt8>
    private var index: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    var isAtEnd: Bool { index == bytes.endIndex }

    mutating func u8() -> UInt8? {
        guard index < bytes.endIndex else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func u16() -> Int? {
        guard let high = u8(), let low = u8() else { return nil }
        return Int(high) << 8 | Int(low)
    }

    /// The next `count` bytes.
    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, bytes.endIndex - index >= count else { return nil }
        defer { index += count }
        return bytes[index..<index + count]
    }

    /// A vector with a 1-byte length prefix, whose length lies in `range`.
    mutating func vector8(_ range: ClosedRange<Int>) -> ArraySlice<UInt8>? {
        guard let length = u8().map(Int.init), range.contains(length) else { return nil }
        return take(length)
    }

    /// A vector with a 2-byte length prefix, whose length lies in `range`.
    mutating func vector16(_ range: ClosedRange<Int>) -> ArraySlice<UInt8>? {
        guard let length = u16(), range.contains(length) else { return nil }
        return take(length)
    }
}

/// Parses a ClientHello body (after the 4-byte handshake header) for the two extensions the
/// proxy needs before it decides anything: server_name and ALPN.
enum ClientHelloParser {
    struct Hello: Equatable {
        var serverName: String?
        var alpn: [String] = []
    }

    struct Problem: Error, Equatable {
        let reason: String
    }

    static let serverNameExtension = 0
    static let alpnExtension = 16

    /// RFC 8446 §4.1.2 (and RFC 5246 §7.4.1.2, where extensions may be absent).
    static func parse(_ reader: inout ByteReader) -> Result<Hello, Problem> {
        guard let version = reader.u16() else { return .failure(Problem(reason: "no legacy_version")) }
        guard version >> 8 == 3 else { return .failure(Problem(reason: "legacy_version \(version) is not 3.x")) }
        guard reader.take(32) != nil else { return .failure(Problem(reason: "random is short")) }
        guard reader.vector8(0...32) != nil else { return .failure(Problem(reason: "bad legacy_session_id")) }
        guard let suites = reader.vector16(2...0xFFFE), suites.count % 2 == 0 else {
            return .failure(Problem(reason: "bad cipher_suites"))
        }
        guard reader.vector8(1...255) != nil else { return .failure(Problem(reason: "bad legacy_compression_methods")) }
        var hello = Hello()
        if reader.isAtEnd { return .success(hello) }
        guard let extensionBytes = reader.vector16(0...0xFFFF), reader.isAtEnd else {
            return .failure(Problem(reason: "the extensions do not fill the rest of the message"))
        }
        var extensions = ByteReader(extensionBytes)
        var seen: Set<Int> = []
        while !extensions.isAtEnd {
            guard let type = extensions.u16(), let data = extensions.vector16(0...0xFFFF) else {
                return .failure(Problem(reason: "an extension is truncated"))
            }
            // RFC 8446 §4.2: no extension type may appear twice.
            guard seen.insert(type).inserted else {
                return .failure(Problem(reason: "extension \(type) appears twice"))
            }
            switch type {
            case serverNameExtension:
                switch parseServerName(data) {
                case .success(let name): hello.serverName = name
                case .failure(let problem): return .failure(problem)
                }
            case alpnExtension:
                switch parseALPN(data) {
                case .success(let names): hello.alpn = names
                case .failure(let problem): return .failure(problem)
                }
            default:
                continue
            }
        }
        return .success(hello)
    }

    /// RFC 6066 §3: ServerNameList of (NameType, HostName<1..2^16-1>); host_name is type 0 and
    /// appears at most once. A host name is ASCII without a trailing dot; we accept printable
    /// ASCII here and leave finer checks to certificate minting.
    private static func parseServerName(_ data: ArraySlice<UInt8>) -> Result<String?, Problem> {
        var outer = ByteReader(data)
        guard let list = outer.vector16(1...0xFFFF), outer.isAtEnd else {
            return .failure(Problem(reason: "bad server_name list"))
        }
        var names = ByteReader(list)
        var hostName: String?
        while !names.isAtEnd {
            guard let nameType = names.u8(), let name = names.vector16(1...0xFFFF) else {
                return .failure(Problem(reason: "bad server_name entry"))
            }
            guard nameType == 0 else { continue }
            guard hostName == nil else { return .failure(Problem(reason: "two host_name entries in server_name")) }
            guard name.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                return .failure(Problem(reason: "server_name holds bytes that are not printable ASCII"))
            }
            hostName = String(decoding: name, as: UTF8.self)
        }
        return .success(hostName)
    }

    /// RFC 7301 §3.1: ProtocolName protocol_name_list<2..2^16-1>, each ProtocolName<1..2^8-1>.
    private static func parseALPN(_ data: ArraySlice<UInt8>) -> Result<[String], Problem> {
        var outer = ByteReader(data)
        guard let list = outer.vector16(2...0xFFFF), outer.isAtEnd else {
            return .failure(Problem(reason: "bad ALPN protocol list"))
        }
        var entries = ByteReader(list)
        var names: [String] = []
        while !entries.isAtEnd {
            guard let name = entries.vector8(1...255) else {
                return .failure(Problem(reason: "bad ALPN protocol name"))
            }
            names.append(String(decoding: name, as: UTF8.self))
        }
        return .success(names)
    }
}
