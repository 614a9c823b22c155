/// Application-Layer Protocol Negotiation lists in their wire form (RFC 7301 §3.1): each
/// protocol name is a length byte followed by 1–255 bytes.
enum ALPN {
    /// The wire form of `protocols`, or `invalid-alpn` for an empty or over-long name.
    static func wire(_ protocols: [String]) throws(TLSError) -> [UInt8] {
        var bytes: [UInt8] = []
        for name in protocols {
            let utf8 = Array(name.utf8)
            guard (1...255).contains(utf8.count) else {
                throw TLSError(
                    code: TLSError.invalidALPN,
                    description:
                        "The ALPN protocol name \"\(HostIdentity.printable(name))\" must be 1 to 255 bytes long.")
            }
            bytes.append(UInt8(utf8.count))
            bytes.append(contentsOf: utf8)
        }
        guard bytes.count <= 0xFFFF else {
            throw TLSError(
                code: TLSError.invalidALPN, description: "The ALPN protocol list is longer than 65535 bytes.")
        }
        return bytes
    }

    /// The names in a wire-form list; a truncated tail is ignored.
    static func names(_ wire: UnsafeBufferPointer<UInt8>) -> [String] {
        var names: [String] = []
        var index = 0
        while index < wire.count {
            let length = Int(wire[index])
            index += 1
            guard length > 0, index + length <= wire.count else { break }
            names.append(String(decoding: wire[index..<index + length], as: UTF8.self))
            index += length
        }
        return names
    }
}
