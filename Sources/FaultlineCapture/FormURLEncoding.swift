import FaultlineCore

/// `name=value&name=value`, as URL queries and `application/x-www-form-urlencoded` bodies write
/// pairs (WHATWG URL Standard §5, "application/x-www-form-urlencoded"): `+` stands for a space
/// and `%XX` for a byte.
enum FormURLEncoding {
    /// The decoded pairs of `text`, in order; empty pieces (`a=1&&b=2`) are skipped and a piece
    /// without `=` is a name with an empty value. A name or value whose bytes do not decode to
    /// UTF-8 is kept as written.
    static func pairs(_ text: some StringProtocol) -> [(name: String, value: String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { piece in
            guard let equals = piece.firstIndex(of: "=") else { return (decoded(piece), "") }
            return (decoded(piece[..<equals]), decoded(piece[piece.index(after: equals)...]))
        }
    }

    /// `pairs` written back: every byte but the unreserved characters (RFC 3986 §2.3) is
    /// percent-encoded, and a space becomes `+`.
    static func encoded(_ pairs: [(name: String, value: String)]) -> String {
        pairs.map { encodedComponent($0.name) + "=" + encodedComponent($0.value) }.joined(separator: "&")
    }

    private static func decoded(_ component: some StringProtocol) -> String {
        let bytes = Array(component.utf8)
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            return String(component)
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                output.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = HexDigit.value(bytes[index + 1]), let low = HexDigit.value(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 2
            } else {
                output.append(byte)
            }
            index += 1
        }
        return String(validating: output, as: UTF8.self) ?? String(component)
    }

    private static func encodedComponent(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                output += "+"
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                output += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return output
    }
}
