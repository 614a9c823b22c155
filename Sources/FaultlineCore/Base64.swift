/// Base64 (RFC 4648): captured bodies that are not UTF-8 text and WebSocket keys (§4, with
/// padding), random tokens (§5, the URL- and filename-safe alphabet, without padding). Written
/// here because these modules stay free of Foundation.
public enum Base64 {
    /// Which of RFC 4648's encodings.
    public enum Variant: Sendable {
        /// §4: `+` and `/`, padded with `=`.
        case standard
        /// §5 without padding (§3.2): `-` and `_`, for headers, cookies and URLs as they are.
        case urlUnpadded
    }

    private static let standardAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Hands `emit` the encoding of `bytes`, one group of up to four characters at a time, in
    /// order (a short last group is padded with `=` in the standard variant, cut in the other).
    public static func encode(
        _ bytes: UnsafeBufferPointer<UInt8>, variant: Variant = .standard, _ emit: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        let alphabet = variant == .standard ? standardAlphabet : urlAlphabet
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
            let count = variant == .standard ? 4 : min(4, remaining + 1)
            quad.withUnsafeBufferPointer { emit(UnsafeBufferPointer(rebasing: $0.prefix(count))) }
            index += 3
        }
    }

    /// The encoding of `bytes` as text.
    public static func encoded(_ bytes: [UInt8], variant: Variant = .standard) -> String {
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count + 2) / 3 * 4)
        bytes.withUnsafeBufferPointer { encode($0, variant: variant) { text.append(contentsOf: $0) } }
        return String(decoding: text, as: UTF8.self)
    }
}
