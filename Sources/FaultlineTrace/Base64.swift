/// Base64 with padding (RFC 4648 §4), for captured bodies that are not UTF-8 text. Written here
/// because this module stays free of Foundation.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func append(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout JSONOutput) {
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
            quad.withUnsafeBufferPointer { output.append($0) }
            index += 3
        }
    }
}
