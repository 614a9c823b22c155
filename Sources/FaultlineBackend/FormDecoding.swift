import FaultlineCore

/// The name/value pairs of an `application/x-www-form-urlencoded` body or a query string, in order.
///
/// Get one from `FormFields.decode(_:)`. Names may repeat; `value(_:)` returns the first.
struct FormFields: Sendable, Equatable {
    var pairs: [(name: String, value: String)]

    static func == (lhs: FormFields, rhs: FormFields) -> Bool {
        lhs.pairs.count == rhs.pairs.count && zip(lhs.pairs, rhs.pairs).allSatisfy { $0 == $1 }
    }

    /// The value of the first pair named `name`, or nil.
    func value(_ name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// An OAuth parameter: the value of `name`, nil when absent or empty (RFC 6749 §3.2: a
    /// parameter sent without a value is treated as omitted).
    func parameter(_ name: String) -> String? {
        value(name).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The first name that appears more than once, or nil.
    var repeatedName: String? {
        var seen = Set<String>()
        for pair in pairs where !seen.insert(pair.name).inserted { return pair.name }
        return nil
    }

    /// Splits `bytes` on `&`, each piece on its first `=`, turns `+` into a space and decodes
    /// percent escapes (WHATWG URL §5.1, which RFC 6749 Appendix B points to). Empty pieces are
    /// skipped. Stricter than browsers on purpose, since a test backend should say what is wrong:
    /// a `%` not followed by two hex digits, or a result that is not UTF-8, throws `FormError`.
    static func decode(_ bytes: some Collection<UInt8>) throws(FormError) -> FormFields {
        var fields = FormFields(pairs: [])
        for piece in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let name: String
            let value: String
            if let equals = piece.firstIndex(of: UInt8(ascii: "=")) {
                name = try percentDecode(piece[piece.startIndex..<equals])
                value = try percentDecode(piece[piece.index(after: equals)...])
            } else {
                name = try percentDecode(piece)
                value = ""
            }
            fields.pairs.append((name, value))
        }
        return fields
    }

    /// Decodes `+` and `%XX`; throws on a broken escape or bytes that are not UTF-8.
    static func percentDecode(_ bytes: some Collection<UInt8>) throws(FormError) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "+"):
                output.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                let first = bytes.index(after: index)
                guard first != bytes.endIndex, bytes.index(after: first) != bytes.endIndex,
                    let high = HexDigit.value(bytes[first]), let low = HexDigit.value(bytes[bytes.index(after: first)])
                else {
                    throw FormError("a '%' is not followed by two hexadecimal digits")
                }
                output.append(high << 4 | low)
                index = bytes.index(after: first)
            default:
                output.append(byte)
            }
            index = bytes.index(after: index)
        }
        guard let text = String(validating: output, as: UTF8.self) else {
            throw FormError("a decoded name or value is not UTF-8")
        }
        return text
    }
}

/// A form body or query string that cannot be decoded, with the reason for the 400 answer.
struct FormError: Error, Sendable, Equatable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
