/// Base64 with padding (RFC 4648 §4): captured bodies that are not UTF-8 text, WebSocket keys.
/// Written here because these modules stay free of Foundation.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Hands `emit` the encoding of `bytes`, four characters at a time, in order.
    public static func encode(_ bytes: UnsafeBufferPointer<UInt8>, _ emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        var index = 0
        var quad: [UInt8] = [0, 0, 0, 0]
        while index < bytes.count {
            let remaining = bytes.count - index
            let first = UInt32(bytes[index])
            let second = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let third = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = first << 16 | second << 8 | third
            quad[0] = alphabet[Int(group >> 18 & 63)]
            quad[1] = alphabet[Int(group >> 12 & 63)]
            quad[2] = remaining > 1 ? alphabet[Int(group >> 6 & 63)] : UInt8(ascii: "=")
            quad[3] = remaining > 2 ? alphabet[Int(group & 63)] : UInt8(ascii: "=")
            quad.withUnsafeBufferPointer(emit)
            index += 3
        }
    }

    /// The encoding of `bytes` as text.
    public static func encoded(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count + 2) / 3 * 4)
        bytes.withUnsafeBufferPointer { encode($0) { text.append(contentsOf: $0) } }
        return String(decoding: text, as: UTF8.self)
    }
}
